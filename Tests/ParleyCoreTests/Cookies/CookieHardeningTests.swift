import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import Parley
@testable import ParleyTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An origin whose `/cookies` answers with the `Cookie` field its request carried, as it arrived.
private final class CookieEchoServer: Sendable {
    let baseURL: URL
    private let server: TestServer

    private init(baseURL: URL, server: TestServer) {
        self.baseURL = baseURL
        self.server = server
    }

    static func start() async throws -> CookieEchoServer {
        let router = Router(context: BasicRequestContext.self)
        router.get("cookies") { request, _ -> String in
            request.headers[values: .cookie].joined(separator: " | ")
        }
        let server = try await TestServer.start(router, label: "parley.cookie-hardening")
        return CookieEchoServer(baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), server: server)
    }

    /// The `Cookie` field a request from a client with `jar` carries.
    func wire(_ jar: CookieJar) async throws -> String {
        var configuration = Client.Configuration()
        configuration.cookies = jar
        let client = Client(baseURL: baseURL, configuration: configuration)
        let echoed = try await client.send(Cookies())
        try await client.shutdown()
        return echoed
    }

    func stop() async {
        await server.stop()
    }
}

private struct Cookies: Endpoint {
    typealias Response = String
    var path: Path { "/cookies" }
}

/// Issue 24, item 6: a cookie file or `insert` cannot put cookies of its own on the wire.
@Suite("Cookie jar: only RFC 6265 names and values, whichever way they come in")
struct CookieSyntaxTests {
    static let badValues = [
        "light; admin=true", "a b", "a,b", "\"a", "a\"b", "a\\b", "caf\u{E9}", "a\u{7F}", "a\tb", "a\r\nX: 1", " a",
        "\"a;b\"", "\"\"\"",
    ]
    static let badNames = ["", "a b", "a;b", "a=b", "a,b", "\"a\"", "caf\u{E9}", "a\u{0}", "(a)"]

    @Test("insert refuses a value that is not cookie-octets, or a name that is not a token: the wire has the good ones")
    func insertRefused() async throws {
        let server = try await CookieEchoServer.start()
        let jar = CookieJar()
        #expect(jar.insert(Parley.Cookie(name: "theme", value: "light; admin=true", domain: "127.0.0.1")) == false)
        for value in Self.badValues {
            #expect(jar.insert(Parley.Cookie(name: "v", value: value, domain: "127.0.0.1")) == false, "\(value)")
        }
        for name in Self.badNames {
            #expect(jar.insert(Parley.Cookie(name: name, value: "1", domain: "127.0.0.1")) == false, "\(name)")
        }
        #expect(jar.insert(Parley.Cookie(name: "a", value: String(repeating: "x", count: 4096), domain: "127.0.0.1")) == false)
        #expect(jar.cookies.isEmpty)
        for (name, value) in [("ok", "1"), ("quoted", "\"x=y\""), ("empty", ""), ("sym", "!#$%&'()*+-./:<=>?@[]^_`{|}~")] {
            #expect(jar.insert(Parley.Cookie(name: name, value: value, domain: "127.0.0.1")), "\(name)=\(value)")
        }
        let wire = try await server.wire(jar)
        #expect(wire == "ok=1; quoted=\"x=y\"; empty=; sym=!#$%&'()*+-./:<=>?@[]^_`{|}~")
        await server.stop()
    }

    @Test("a cookie file's bad entries are skipped, the others load; the wire has the good ones only")
    func fileEntriesSkipped() async throws {
        let server = try await CookieEchoServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-jar-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("jar.json")
        // The file a careless (or hostile) hand wrote: save a jar, then edit values in.
        let written = CookieJar()
        #expect(written.insert(Parley.Cookie(name: "theme", value: "PLACEHOLDER", domain: "127.0.0.1")))
        for (index, _) in Self.badValues.enumerated() {
            #expect(written.insert(Parley.Cookie(name: "bad\(index)", value: "PLACEHOLDER\(index)", domain: "127.0.0.1")))
        }
        for (index, _) in Self.badNames.enumerated() {
            #expect(written.insert(Parley.Cookie(name: "NAME\(index)", value: "1", domain: "127.0.0.1")))
        }
        #expect(written.insert(Parley.Cookie(name: "last", value: "2", domain: "127.0.0.1")))
        try written.save(to: file)
        var text = try String(contentsOf: file, encoding: .utf8)
        func json(_ string: String) throws -> String {
            String(decoding: try JSONEncoder().encode(string), as: UTF8.self)
        }
        for (index, value) in Self.badValues.enumerated().reversed() {
            text = text.replacingOccurrences(of: "\"PLACEHOLDER\(index)\"", with: try json(value))
        }
        for (index, name) in Self.badNames.enumerated().reversed() {
            text = text.replacingOccurrences(of: "\"NAME\(index)\"", with: try json(name))
        }
        text = text.replacingOccurrences(of: "\"PLACEHOLDER\"", with: "\"light; admin=true\"")
        #expect(text.contains("light; admin=true"))
        try Data(text.utf8).write(to: file)

        let jar = try CookieJar(contentsOf: file)
        #expect(jar.cookies.map(\.name) == ["last"])
        #expect(try await server.wire(jar) == "last=2")
        await server.stop()
    }

    @Test("a server's Set-Cookie value outside cookie-octets is kept as browsers keep it, but not saved to a file")
    func setCookieOutsideGrammar() throws {
        let jar = CookieJar()
        let url = try #require(URL(string: "http://127.0.0.1/"))
        jar.store(["sp=a b", "quote=\"a b\"", "nonascii=caf\u{E9}", "ok=\"x\"", "n m=1", "ctl=a\u{1}b"], from: url)
        #expect(Set(jar.cookies.map(\.name)) == ["sp", "quote", "nonascii", "ok"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-jar-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try jar.save(to: file)
        #expect(try CookieJar(contentsOf: file).cookies.map(\.name) == ["ok"], "only cookie-octets are written")
    }
}

/// Issue 24, item 7: the cookie file and the disk cache's entries are checked on the opened file, not the path.
@Suite("Files read back: a link to a huge file or a pipe is refused without reading it")
struct BoundedFileReadTests {
    private static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-read-\(UUID().uuidString)")
    }

    @Test("a cookie file that links to a 200 MiB (sparse) file is refused for its size, not read and then decoded")
    func cookieFileLinkToHugeFile() throws {
        let folder = Self.folder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let huge = folder.appendingPathComponent("huge")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        #expect(truncate(huge.path, 200 * 1024 * 1024) == 0)
        let link = folder.appendingPathComponent("jar.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: huge)
        let error = #expect(throws: ParleyError.self) { try CookieJar(contentsOf: link) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("209715200 bytes") == true, "\(String(describing: error))")
    }

    @Test("a cookie file that links to a small regular file is read (a link may be legitimate)")
    func cookieFileLinkToJar() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = folder.appendingPathComponent("real.json")
        let jar = CookieJar()
        #expect(jar.insert(Parley.Cookie(name: "a", value: "1", domain: "h.test")))
        try jar.save(to: real)
        let link = folder.appendingPathComponent("jar.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        #expect(try CookieJar(contentsOf: link).cookies.map(\.name) == ["a"])
    }

    @Test("a cookie file that is (or links to) a pipe is refused at once; a reader of the pipe would block")
    func cookieFilePipe() async {
        await #expect(processExitsWith: .success) { try readCookiePipe() }
    }

    @Test("a cache entry that links to a file larger than the store's size is a miss, not read")
    func cacheEntryLinkToLargeFile() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let entry = try await Self.storeEntry(in: folder)
        // The entry, padded with JSON whitespace past 4 KiB, moved elsewhere and linked to.
        let elsewhere = folder.appendingPathComponent("elsewhere")
        var padded = try Data(contentsOf: entry)
        padded.append(Data(repeating: UInt8(ascii: " "), count: 4096))
        try padded.write(to: elsewhere)
        try FileManager.default.removeItem(at: entry)
        try FileManager.default.createSymbolicLink(at: entry, withDestinationURL: elsewhere)
        #expect(await DiskCacheStore(folder: folder, maxSize: 1 << 20).responses(for: "k").count == 1, "readable whole")
        #expect(await DiskCacheStore(folder: folder, maxSize: 4096).responses(for: "k").isEmpty)
    }

    @Test("a cache entry that is (or links to) a pipe is a miss at once")
    func cacheEntryPipe() async {
        await #expect(processExitsWith: .success) { try await readCachePipe() }
    }

    /// Stores one response under the key `k` in a store in `folder`; its file.
    static func storeEntry(in folder: URL) async throws -> URL {
        let store = DiskCacheStore(folder: folder)
        let response = CachedResponse(
            HTTPResponse(status: .ok),
            body: Data("hello".utf8),
            requestTime: Date(),
            responseTime: Date(),
            varied: [:]
        )
        await store.store([response], for: "k")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".parley-cache") }
        return folder.appendingPathComponent(try #require(names.first))
    }
}

/// Ends the process if the test's reading blocks (what reading a pipe with no writer does).
private func failIfBlocked() {
    signal(SIGALRM, SIG_DFL)
    alarm(20)
}

private struct Unexpected: Error, CustomStringConvertible {
    let description: String
}

private func readCookiePipe() throws {
    failIfBlocked()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-pipe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let pipe = folder.appendingPathComponent("pipe")
    guard mkfifo(pipe.path, 0o600) == 0 else { throw Unexpected(description: "mkfifo failed") }
    let link = folder.appendingPathComponent("jar.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: pipe)
    for file in [pipe, link] {
        do {
            _ = try CookieJar(contentsOf: file)
            throw Unexpected(description: "a pipe was read as a cookie file")
        } catch let error as ParleyError {
            guard error.kind == .invalidRequest, error.message.contains("not a regular file") else {
                throw Unexpected(description: "\(error)")
            }
        }
    }
}

private func readCachePipe() async throws {
    failIfBlocked()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-pipe-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let entry = try await BoundedFileReadTests.storeEntry(in: folder)
    try FileManager.default.removeItem(at: entry)
    guard mkfifo(entry.path, 0o600) == 0 else { throw Unexpected(description: "mkfifo failed") }
    guard await DiskCacheStore(folder: folder).responses(for: "k").isEmpty else {
        throw Unexpected(description: "a pipe was a hit")
    }
    try? FileManager.default.removeItem(at: entry)
    let pipe = folder.appendingPathComponent("pipe")
    guard mkfifo(pipe.path, 0o600) == 0 else { throw Unexpected(description: "mkfifo failed") }
    try FileManager.default.createSymbolicLink(at: entry, withDestinationURL: pipe)
    guard await DiskCacheStore(folder: folder).responses(for: "k").isEmpty else {
        throw Unexpected(description: "a link to a pipe was a hit")
    }
}

/// Issue 24, item 14: the jar's index keeps its rules. Each store, replacement, deletion and eviction is checked
/// against the plain list the jar used to be (a cookie found by scanning, the oldest first), over random operations.
@Suite("Cookie jar: the indexed store behaves as the plain list it replaces")
struct CookieStorageTests {
    /// The jar as it was: every cookie in one list, oldest first, scanned for each operation.
    private struct ListJar {
        var cookies: [Parley.Cookie] = []
        let total: Int
        let perDomain: Int

        mutating func store(_ field: String, from url: URL, now: Date) throws {
            let origin = try #require(CookieJar.Target(url))
            guard let parsed = SetCookie.parse(field),
                let (cookie, isDeletion) = CookieJar.cookie(from: parsed, origin: origin, now: now)
            else { return }
            if !origin.isSecure,
                cookies.contains(where: {
                    $0.isSecure && $0.name == cookie.name
                        && (CookieJar.domainMatches($0.domain, cookie.domain, hostIsAddress: origin.isAddress)
                            || CookieJar.domainMatches(cookie.domain, $0.domain, hostIsAddress: origin.isAddress))
                        && CookieJar.pathMatches(cookie.path, $0.path)
                })
            {
                return
            }
            let same = { (other: Parley.Cookie) in
                other.name == cookie.name && other.domain == cookie.domain && other.path == cookie.path
            }
            if isDeletion {
                cookies.removeAll(where: same)
                return
            }
            if let index = cookies.firstIndex(where: same) {
                var replacement = cookie
                replacement.created = cookies[index].created
                cookies[index] = replacement
                return
            }
            cookies.append(cookie)
            let sameDomain = cookies.indices.filter { cookies[$0].domain == cookie.domain }
            if sameDomain.count > perDomain {
                for index in sameDomain.prefix(sameDomain.count - perDomain).reversed() { cookies.remove(at: index) }
            }
            if cookies.count > total { cookies.removeFirst(cookies.count - total) }
        }

        func cookies(for url: URL) throws -> [Parley.Cookie] {
            let target = try #require(CookieJar.Target(url))
            return cookies.filter { CookieJar.belongs($0, to: target) }.enumerated()
                .sorted { ($0.element.path.utf8.count, $1.offset) > ($1.element.path.utf8.count, $0.offset) }
                .map(\.element)
        }
    }

    /// SplitMix64: the same operations on every run.
    private struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    private func summary(_ cookies: [Parley.Cookie]) -> [String] {
        cookies.map { "\($0.name)=\($0.value) \($0.domain)\($0.path)\($0.isSecure ? " S" : "")\($0.isHostOnly ? "" : " D")" }
    }

    @Test("replacement, deletion, Secure shadowing, per-domain and total eviction: the same cookies, in the same order")
    func sameAsList() throws {
        let now = Date()
        let jar = CookieJar(maxCookies: 12, maxCookiesPerDomain: 5)
        var list = ListJar(total: 12, perDomain: 5)
        var random = Random(state: 24)
        let hosts = ["a.test", "x.a.test", "y.x.a.test", "b.test", "c.test", "127.0.0.1"]
        let paths = ["/", "/p", "/p/q", "/r"]
        for step in 0..<4000 {
            let host = hosts[random.next(hosts.count)]
            let secure = random.next(2) == 0
            let url = try #require(URL(string: "\(secure ? "https" : "http")://\(host)\(paths[random.next(paths.count)])/x"))
            var field = "n\(random.next(4))=v\(step)"
            if random.next(3) == 0 { field += "; Path=\(paths[random.next(paths.count)])" }
            if random.next(4) == 0, host.hasSuffix("a.test") { field += "; Domain=a.test" }
            if random.next(3) == 0 { field += "; Secure" }
            if random.next(8) == 0 { field += "; Max-Age=0" }
            jar.store([field], from: url)
            try list.store(field, from: url, now: now)
            try #require(summary(jar.cookies) == summary(list.cookies), "step \(step): \(field) from \(url)")
            let asked = try #require(URL(string: "https://\(hosts[random.next(hosts.count)])\(paths[random.next(paths.count)])"))
            try #require(summary(jar.cookies(for: asked)) == summary(try list.cookies(for: asked)), "step \(step): \(asked)")
        }
    }

    @Test("a response of 50 cookies into a full jar of 3,000: the 50 oldest go, the limits hold")
    func fullJar() throws {
        let jar = CookieJar()
        for domain in 0..<60 {
            jar.store((0..<50).map { "c\($0)=\(domain)" }, from: try #require(URL(string: "http://d\(domain).test/")))
        }
        #expect(jar.cookies.count == 3000)
        jar.store((0..<60).map { "n\($0)=1; Path=/p\($0)" }, from: try #require(URL(string: "http://new.test/")))
        let cookies = jar.cookies
        #expect(cookies.count == 3000)
        #expect(!cookies.contains { $0.domain == "d0.test" }, "the oldest domain's cookies went first")
        #expect(cookies.first?.domain == "d1.test")
        #expect(cookies.filter { $0.domain == "new.test" }.map(\.name) == (10..<60).map { "n\($0)" }, "50 per domain")
    }
}
