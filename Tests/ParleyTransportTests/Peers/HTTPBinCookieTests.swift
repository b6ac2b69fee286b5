import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// A GET of httpbin answering JSON.
private struct HTTPBinJSON: Endpoint {
    typealias Response = JSONValue
    var path: Path
    var query: Query = []
}

/// httpbin's `/cookies` family through a client with a ``CookieJar``, on both transports: cookies set on a redirect
/// hop reach the next hop, deletions delete, and the jar's rules hold against what a real server sends.
@Suite(
    "Independent peer: httpbin cookies through a cookie jar",
    .enabled(if: HTTPBin.url != nil, "scripts/test starts httpbin and sets PARLEY_HTTPBIN_URL")
)
struct HTTPBinCookieTests {
    private func client(_ transport: TransportKind, jar: CookieJar) throws -> Client {
        var configuration = Client.Configuration()
        configuration.cookies = jar
        return Client(baseURL: try #require(HTTPBin.url), transport: transport.makeTransport(), configuration: configuration)
    }

    @Test("set on a redirect hop, sent to the next hop and later calls; deleted by the server", arguments: TransportKind.allCases)
    func setAndDelete(transport: TransportKind) async throws {
        let jar = CookieJar()
        let client = try client(transport, jar: jar)
        // /cookies/set answers 302 to /cookies with Set-Cookie: the redirect's cookies reach the hop that follows.
        let set = try await client.send(HTTPBinJSON(path: "/cookies/set", query: ["a": "b", "c": "d e"]))
        #expect(set["cookies"] == ["a": "b", "c": "d e"])
        #expect(Set(jar.cookies.map(\.name)) == ["a", "c"])
        #expect(jar.cookies.allSatisfy { $0.isHostOnly && $0.path == "/" && $0.expires == nil })
        let later = try await client.send(HTTPBinJSON(path: "/cookies"))
        #expect(later["cookies"] == ["a": "b", "c": "d e"])
        let deleted = try await client.send(HTTPBinJSON(path: "/cookies/delete", query: ["a": ""]))
        #expect(deleted["cookies"] == ["c": "d e"])
        #expect(jar.cookies.map(\.name) == ["c"])
        try await client.shutdown()
    }

    @Test(
        "what the server may not set is not kept: Secure over HTTP, another domain, a public suffix; a Path is honoured",
        arguments: TransportKind.allCases
    )
    func rules(transport: TransportKind) async throws {
        let jar = CookieJar()
        let client = try client(transport, jar: jar)
        let refused = ["s=1; Secure", "other=1; Domain=example.test", "suffix=1; Domain=com"]
        for value in refused {
            _ = try await client.send(HTTPBinJSON(path: "/response-headers", query: ["Set-Cookie": value]))
        }
        #expect(jar.cookies.isEmpty, "\(jar.cookies)")
        _ = try await client.send(HTTPBinJSON(path: "/response-headers", query: ["Set-Cookie": "scoped=1; Path=/anything"]))
        let anything = try await client.send(HTTPBinJSON(path: "/anything/deeper"))
        #expect(anything["headers"]?["Cookie"] == "scoped=1")
        let elsewhere = try await client.send(HTTPBinJSON(path: "/cookies"))
        #expect(elsewhere["cookies"] == [:], "the path keeps it from /cookies")
        _ = try await client.send(
            HTTPBinJSON(path: "/response-headers", query: ["Set-Cookie": "scoped=; Path=/anything; Max-Age=0"])
        )
        #expect(jar.cookies.isEmpty)
        try await client.shutdown()
    }

    @Test("without a jar nothing is kept, redirect hops included", arguments: TransportKind.allCases)
    func noJar(transport: TransportKind) async throws {
        let client = Client(baseURL: try #require(HTTPBin.url), transport: transport.makeTransport())
        let set = try await client.send(HTTPBinJSON(path: "/cookies/set", query: ["a": "b"]))
        #expect(set["cookies"] == [:])
        try await client.shutdown()
    }
}
