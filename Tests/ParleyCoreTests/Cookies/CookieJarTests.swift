import Foundation
import Testing

@testable import Parley

/// The jar's rules (RFC 6265, sections 5.3 and 5.4), fed `Set-Cookie` values for URLs that are never contacted.
@Suite("Cookie jar: domains, paths, Secure, expiry, replacement, limits and the file")
struct CookieJarTests {
    private func url(_ string: String) throws -> URL { try #require(URL(string: string)) }

    private func names(_ jar: CookieJar, _ string: String) throws -> [String] {
        jar.cookies(for: try url(string)).map(\.name)
    }

    @Test("a host-only cookie goes back to its host alone; a Domain cookie to the domain and its subdomains")
    func domains() throws {
        let jar = CookieJar()
        jar.store(["host=1", "wide=2; Domain=.Example.test"], from: try url("https://api.example.test/login"))
        #expect(try names(jar, "https://api.example.test/") == ["host", "wide"])
        #expect(try names(jar, "https://www.example.test/") == ["wide"])
        #expect(try names(jar, "https://example.test/") == ["wide"])
        #expect(try names(jar, "https://deep.api.example.test/") == ["wide"])
        #expect(try names(jar, "https://notexample.test/").isEmpty)
        #expect(try names(jar, "https://example.org/").isEmpty)
        #expect(try names(jar, "https://api.example.test.evil.test/").isEmpty)
    }

    @Test(
        "a Domain attribute that does not cover the host, or that is a public suffix, is refused",
        arguments: ["Domain=other.test", "Domain=com", "Domain=test", "Domain=co.uk", "Domain=pi.example.test"]
    )
    func refusedDomains(_ attribute: String) throws {
        let jar = CookieJar()
        jar.store(["a=1; \(attribute)"], from: try url("https://api.example.test/"))
        jar.store(["b=1; \(attribute)"], from: try url("https://shop.co.uk/"))
        #expect(jar.cookies.isEmpty, "\(jar.cookies)")
    }

    @Test("a host that is a public suffix itself may set a host-only cookie naming itself; an IP address only host-only")
    func suffixHostsAndAddresses() throws {
        let jar = CookieJar()
        jar.store(["a=1; Domain=localhost"], from: try url("http://localhost:8080/"))
        #expect(try names(jar, "http://localhost/") == ["a"])
        #expect(jar.cookies.first?.isHostOnly == true)
        jar.store(["b=1", "c=1; Domain=0.0.1"], from: try url("http://127.0.0.1:9000/"))
        #expect(try names(jar, "http://127.0.0.1:1234/") == ["b"], "ports do not separate cookies (RFC 6265, 8.5)")
        #expect(try names(jar, "http://[::1]:9000/").isEmpty)
        jar.store(["v6=1"], from: try url("http://[::1]:9000/"))
        #expect(try names(jar, "http://[::1]/") == ["v6"])
        #expect(!(try names(jar, "http://127.0.0.1/").contains("v6")))
    }

    @Test("paths: the default path is the request's folder; a cookie goes to its path and below, longest path first")
    func paths() throws {
        let jar = CookieJar()
        jar.store(["folder=1"], from: try url("http://h.test/docs/guide/page"))
        jar.store(["root=1; Path=/", "api=1; Path=/api", "bad=1; Path=relative"], from: try url("http://h.test/x"))
        #expect(jar.cookies.first { $0.name == "folder" }?.path == "/docs/guide")
        #expect(jar.cookies.first { $0.name == "bad" }?.path == "/", "a path not starting with / is the default")
        #expect(try names(jar, "http://h.test/docs/guide/page2") == ["folder", "root", "bad"])
        #expect(try names(jar, "http://h.test/docs/guidebook") == ["root", "bad"])
        #expect(try names(jar, "http://h.test/api/v1") == ["api", "root", "bad"])
        #expect(try names(jar, "http://h.test/apix") == ["root", "bad"])
        #expect(jar.cookieHeader(for: try url("http://h.test/api")) == "api=1; root=1; bad=1")
    }

    @Test("Secure cookies: set over https only, sent over https only")
    func secure() throws {
        let jar = CookieJar()
        jar.store(["s=1; Secure"], from: try url("http://h.test/"))
        #expect(jar.cookies.isEmpty, "a Secure cookie from plain HTTP is refused")
        jar.store(["s=1; Secure"], from: try url("https://h.test/"))
        #expect(try names(jar, "https://h.test/") == ["s"])
        #expect(try names(jar, "http://h.test/").isEmpty)
        #expect(try names(jar, "wss://h.test/") == ["s"])
    }

    @Test("plain HTTP cannot replace a Secure cookie; __Secure- and __Host- prefixes are enforced")
    func secureLeftAlone() throws {
        let jar = CookieJar()
        jar.store(["s=secret; Secure"], from: try url("https://h.test/"))
        jar.store(["s=forged"], from: try url("http://h.test/"))
        #expect(jar.cookies.map(\.value) == ["secret"])
        jar.store(
            ["__Secure-a=1", "__Host-b=1; Secure; Domain=h.test; Path=/", "__Host-c=1; Secure; Path=/x"],
            from: try url("https://h.test/")
        )
        #expect(jar.cookies.map(\.name) == ["s"])
        jar.store(["__Secure-a=1; Secure", "__Host-b=1; Secure; Path=/"], from: try url("https://h.test/"))
        #expect(jar.cookies.map(\.name) == ["s", "__Secure-a", "__Host-b"])
    }

    @Test("a cookie set again replaces the old one (keeping its creation time); Max-Age=0 or a past Expires deletes it")
    func replacementAndDeletion() throws {
        let jar = CookieJar()
        let origin = try url("http://h.test/")
        jar.store(["a=1", "b=1"], from: origin)
        let created = try #require(jar.cookies.first { $0.name == "a" }?.created)
        jar.store(["a=2"], from: origin)
        #expect(jar.cookies.count == 2)
        #expect(jar.cookies.first { $0.name == "a" }?.value == "2")
        #expect(jar.cookies.first { $0.name == "a" }?.created == created)
        jar.store(["a=x; Path=/other"], from: origin)
        #expect(jar.cookies.count == 3, "another path: another cookie")
        jar.store(["a=; Max-Age=0"], from: origin)
        jar.store(["b=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], from: origin)
        #expect(jar.cookies.map(\.name) == ["a"])
        #expect(jar.cookies.first?.path == "/other")
    }

    @Test("expiry: Max-Age wins over Expires; an expired cookie is gone; a session cookie has no expiry")
    func expiry() throws {
        let jar = CookieJar()
        jar.store(
            ["m=1; Max-Age=3600; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "s=1", "e=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT"],
            from: try url("http://h.test/")
        )
        let cookies = Dictionary(uniqueKeysWithValues: jar.cookies.map { ($0.name, $0) })
        let inAnHour = try #require(cookies["m"]?.expires).timeIntervalSinceNow
        #expect((3590...3600).contains(inAnHour))
        #expect(cookies["s"]?.expires == nil)
        let capped = try #require(cookies["e"]?.expires).timeIntervalSinceNow
        #expect(capped <= 400 * 86_400 + 1, "RFC 6265bis: at most 400 days")
    }

    @Test("at most maxCookiesPerDomain per domain and maxCookies in all: the oldest go first")
    func limits() throws {
        let jar = CookieJar(maxCookies: 5, maxCookiesPerDomain: 3)
        for number in 0..<4 { jar.store(["c\(number)=1"], from: try url("http://a.test/")) }
        #expect(jar.cookies.map(\.name) == ["c1", "c2", "c3"])
        for number in 0..<3 { jar.store(["d\(number)=1"], from: try url("http://b.test/")) }
        #expect(jar.cookies.count == 5)
        #expect(jar.cookies.map(\.name).suffix(3) == ["d0", "d1", "d2"])
    }

    @Test("saved to a file readable by its owner only, and read back; expired cookies are not read back")
    func persistence() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-jar-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("session.json")
        let jar = CookieJar()
        jar.store(["a=1; Domain=h.test; Path=/p; Secure; HttpOnly; Max-Age=60", "session=2"], from: try url("https://h.test/"))
        try jar.save(to: file)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let read = try CookieJar(contentsOf: file)
        #expect(Set(read.cookies.map(\.name)) == ["a", "session"])
        let a = try #require(read.cookies.first { $0.name == "a" })
        #expect(a.domain == "h.test" && !a.isHostOnly && a.path == "/p" && a.isSecure && a.isHTTPOnly)
        // Saved again over the old file; an expired cookie in a file is dropped on reading.
        var expired = a
        expired.name = "old"
        expired.expires = Date(timeIntervalSince1970: 0)
        try Data(#"{"cookies":[\#(String(decoding: try JSONEncoderISO().encode(expired), as: UTF8.self))]}"#.utf8).write(to: file)
        #expect(try CookieJar(contentsOf: file).cookies.isEmpty)
        #expect(try CookieJar(contentsOf: folder.appendingPathComponent("none.json")).cookies.isEmpty)
    }

    @Test("a file that is not a saved jar is a decoding error that names it")
    func corruptFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-jar-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("not json".utf8).write(to: file)
        let error = #expect(throws: ParleyError.self) { try CookieJar(contentsOf: file) }
        #expect(error?.kind == .decoding)
        #expect(error?.message.contains(file.path) == true)
    }

    /// The encoder of the jar's file format.
    private func JSONEncoderISO() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

@Suite("Set-Cookie fields a transport combined with commas, split again")
struct SetCookieCombinedTests {
    @Test(
        "split before each cookie, never inside an Expires date",
        arguments: [
            ("a=1", ["a=1"]),
            ("a=1; Path=/, b=2", ["a=1; Path=/", "b=2"]),
            (
                "a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/, b=2; Expires=Thu, 10 Jun 2021 10:18:14 GMT",
                ["a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/", "b=2; Expires=Thu, 10 Jun 2021 10:18:14 GMT"]
            ),
            ("a=x,y, b=2", ["a=x,y", "b=2"]),
            ("", []),
        ]
    )
    func split(_ combined: String, _ expected: [String]) {
        #expect(SetCookie.splitCombined(combined) == expected)
    }
}
