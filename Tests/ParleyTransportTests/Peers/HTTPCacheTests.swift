import Foundation
import Hummingbird
import Logging
import MetricsTestKit
import Parley
import ServiceLifecycle
import Testing

@testable import ParleyTestSupport

/// A real transport that counts the requests it sends: what reached the origin.
private final class CountingTransport: ClientTransport, Sendable {
    let base: any ClientTransport
    private let counter = LockedBox(0)
    init(_ base: any ClientTransport) { self.base = base }
    var count: Int { counter.value }

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        counter.mutate { $0 += 1 }
        return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}

private struct Cached: Endpoint {
    typealias Response = JSONValue
    var path: Path
    var query: Query = []
    var headers: Headers = [:]
}

/// The cache's answer to a request: the typed value and what the cache did.
private func fetch(_ client: Client, _ endpoint: Cached) async throws -> (JSONValue, HTTPCache.Outcome?) {
    let (value, response) = try await client.response(for: endpoint)
    return (value, HTTPCache.outcome(of: response))
}

@Suite(
    "Independent peer: the HTTP cache against httpbin (RFC 9111)",
    .enabled(if: HTTPBin.url != nil, "scripts/start-peers starts httpbin and sets PARLEY_HTTPBIN_URL")
)
struct HTTPCacheTests {
    private func client(_ transport: TransportKind, cache: HTTPCache) throws -> (Client, CountingTransport) {
        var configuration = Client.Configuration()
        configuration.cache = cache
        let counting = CountingTransport(transport.makeTransport())
        return (Client(baseURL: try #require(HTTPBin.url), transport: counting, configuration: configuration), counting)
    }

    @Test("max-age: stored, then answered fresh without a request, with its Age", arguments: TransportKind.allCases)
    func fresh(transport: TransportKind) async throws {
        let (client, origin) = try client(transport, cache: HTTPCache())
        let (first, firstOutcome) = try await fetch(client, Cached(path: "/cache/60"))
        let (second, secondOutcome) = try await fetch(client, Cached(path: "/cache/60"))
        #expect(firstOutcome == .miss && secondOutcome == .hit)
        #expect(first == second)
        #expect(origin.count == 1)
        let (_, head) = try await client.response(for: Cached(path: "/cache/60"))
        #expect(head.headerFields[.age] != nil)
        try await client.shutdown()
    }

    @Test(
        "ETag and Last-Modified: a stale response revalidated; the 304 answers with the stored typed value",
        arguments: TransportKind.allCases
    )
    func revalidation(transport: TransportKind) async throws {
        let (client, origin) = try client(transport, cache: HTTPCache())
        let (first, _) = try await fetch(client, Cached(path: "/etag/parley-1"))
        let (second, outcome) = try await fetch(client, Cached(path: "/etag/parley-1"))
        #expect(outcome == .revalidated)
        #expect(first == second)
        #expect(origin.count == 2, "revalidation is a request; its answer is a 304 without a body")
        let (_, modified) = try await fetch(client, Cached(path: "/cache"))
        let (_, again) = try await fetch(client, Cached(path: "/cache"))
        #expect(modified == .miss && again == .revalidated, "If-Modified-Since")
        try await client.shutdown()
    }

    @Test("no-store is never stored; a request's no-cache goes to the origin", arguments: TransportKind.allCases)
    func noStore(transport: TransportKind) async throws {
        let (client, origin) = try client(transport, cache: HTTPCache())
        let noStore = Cached(path: "/response-headers", query: ["Cache-Control": "no-store"])
        _ = try await fetch(client, noStore)
        let (_, outcome) = try await fetch(client, noStore)
        #expect(outcome == .miss && origin.count == 2)
        _ = try await fetch(client, Cached(path: "/cache/60"))
        let (_, forced) = try await fetch(client, Cached(path: "/cache/60", headers: ["Cache-Control": "no-cache"]))
        #expect(forced == .miss && origin.count == 4)
        try await client.shutdown()
    }

    @Test("Vary: one stored response per value of the varying field", arguments: TransportKind.allCases)
    func vary(transport: TransportKind) async throws {
        let (client, origin) = try client(transport, cache: HTTPCache())
        func varying(_ language: String) -> Cached {
            Cached(
                path: "/response-headers",
                query: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                headers: ["Accept-Language": .init(language)]
            )
        }
        #expect(try await fetch(client, varying("fr")).1 == .miss)
        #expect(try await fetch(client, varying("en")).1 == .miss)
        #expect(try await fetch(client, varying("fr")).1 == .hit)
        #expect(try await fetch(client, varying("en")).1 == .hit)
        #expect(origin.count == 2)
        try await client.shutdown()
    }

    @Test("stale-while-revalidate: the stale answer at once, revalidated in the background", arguments: TransportKind.allCases)
    func staleWhileRevalidate(transport: TransportKind) async throws {
        let cache = HTTPCache()
        let (client, origin) = try client(transport, cache: cache)
        let swr = Cached(path: "/response-headers", query: ["Cache-Control": "max-age=0, stale-while-revalidate=60"])
        _ = try await fetch(client, swr)
        let (_, outcome) = try await fetch(client, swr)
        #expect(outcome == .stale)
        await cache.waitForRevalidations()
        #expect(origin.count == 2, "one request, then one background revalidation")
        try await client.shutdown()
    }

    @Test(
        "no user gets another's answer (Authorization, Cookie); a range or the caller's own conditional goes past",
        arguments: TransportKind.allCases
    )
    func perUser(transport: TransportKind) async throws {
        let (client, origin) = try client(transport, cache: HTTPCache())
        #expect(try await fetch(client, Cached(path: "/cache/60", headers: ["Authorization": "Bearer ada"])).1 == .miss)
        #expect(try await fetch(client, Cached(path: "/cache/60", headers: ["Authorization": "Bearer bob"])).1 == .miss)
        #expect(try await fetch(client, Cached(path: "/cache/60", headers: ["Authorization": "Bearer ada"])).1 == .hit)
        #expect(try await fetch(client, Cached(path: "/cache/60", headers: ["Cookie": "session=bob"])).1 == .miss)
        #expect(origin.count == 3)
        struct Ranged: Endpoint {
            typealias Response = Data
            var path: Path = "/range/64"
            var headers: Headers = ["Range": "bytes=0-9"]
        }
        let (bytes, ranged) = try await client.response(for: Ranged())
        #expect(bytes == Data("abcdefghij".utf8) && ranged.status.code == 206)
        #expect(HTTPCache.outcome(of: ranged) == nil, "a range goes past the cache")
        let (_, conditional) = try await client.response(for: Cached(path: "/cache/60", headers: ["If-None-Match": "\"x\""]))
        #expect(HTTPCache.outcome(of: conditional) == nil)
        try await client.shutdown()
    }

    @Test("the logging and metrics middlewares report what the cache did")
    func reported() async throws {
        let log = LogRecorder()
        let metrics = TestMetrics()
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache()
        let client = Client(
            baseURL: try #require(HTTPBin.url),
            middlewares: [.logging(log.logger(level: .info)), .metrics(factory: metrics)],
            configuration: configuration
        )
        _ = try await fetch(client, Cached(path: "/cache/60"))
        _ = try await fetch(client, Cached(path: "/cache/60"))
        let lines = log.records.map(\.message)
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(", cache miss)") == true && lines.last?.hasSuffix(", cache hit)") == true, "\(lines)")
        #expect(log.records.last?["parley.cache"] == "hit")
        let outcomes = metrics.counters(label: "http.client.cache").flatMap(\.dimensions).filter { $0.0 == "outcome" }.map(\.1)
        #expect(Set(outcomes) == ["miss", "hit"])
        try await client.shutdown()
    }

    @Test("a disk store keeps responses between caches, in files readable by their owner only")
    func disk() async throws {
        let folder = try CommandScratchFolder()
        let store = DiskCacheStore(folder: URL(fileURLWithPath: folder.path + "/cache"))
        let (writer, _) = try client(.asyncHTTPClient, cache: HTTPCache(store: store))
        _ = try await fetch(writer, Cached(path: "/cache/60"))
        try await writer.shutdown()
        let (reader, origin) = try client(
            .asyncHTTPClient,
            cache: HTTPCache(store: DiskCacheStore(folder: URL(fileURLWithPath: folder.path + "/cache")))
        )
        let (_, outcome) = try await fetch(reader, Cached(path: "/cache/60"))
        #expect(outcome == .hit && origin.count == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/cache")
        #expect(files.count == 1)
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: folder.path + "/cache/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        try await reader.shutdown()
    }
}

/// An origin whose `/doc` the test controls: its status, and a POST that changes it.
private final class ToggleServer: Sendable {
    let port: Int
    /// The status `/doc` answers with.
    let status: LockedBox<Int>
    private let server: TestServer

    private init(port: Int, status: LockedBox<Int>, server: TestServer) {
        self.port = port
        self.status = status
        self.server = server
    }

    static func start() async throws -> ToggleServer {
        let status = LockedBox(200)
        let router = Router(context: BasicRequestContext.self)
        router.get("doc") { _, _ -> Response in
            let code = status.value
            var response = Response(
                status: HTTPResponse.Status(code: code),
                body: ResponseBody(byteBuffer: .init(string: "{\"v\":\(code)}"))
            )
            response.headers[.contentType] = "application/json"
            response.headers[.cacheControl] = "max-age=0, stale-if-error=60"
            return response
        }
        router.post("doc") { _, _ in Response(status: .noContent) }
        let server = try await TestServer.start(router, label: "parley.cache-origin")
        return ToggleServer(port: server.port, status: status, server: server)
    }

    func stop() async {
        await server.stop()
    }
}

@Suite("The HTTP cache: stale-if-error and invalidation by unsafe methods (an origin of the test's)", .timeLimit(.minutes(1)))
struct HTTPCacheOriginTests {
    @Test(
        "stale-if-error: the stored response answers when the origin answers 5xx or cannot be reached",
        arguments: TransportKind.allCases
    )
    func staleIfError(transport: TransportKind) async throws {
        let origin = try await ToggleServer.start()
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache()
        let client = Client(
            baseURL: try #require(URL(string: "http://127.0.0.1:\(origin.port)")),
            transport: transport.makeTransport(),
            configuration: configuration
        )
        let (first, _) = try await fetch(client, Cached(path: "/doc"))
        #expect(first == ["v": 200])
        origin.status.mutate { $0 = 503 }
        let (stale, outcome) = try await fetch(client, Cached(path: "/doc"))
        #expect(stale == ["v": 200] && outcome == .stale)
        let (again, _) = try await fetch(client, Cached(path: "/doc"))
        #expect(again == ["v": 200], "the 503 did not replace the stored response")
        await origin.stop()
        let (unreachable, gone) = try await fetch(client, Cached(path: "/doc"))
        #expect(unreachable == ["v": 200] && gone == .stale, "the origin is down")
        try await client.shutdown()
    }

    @Test("a successful POST removes the stored responses of its URL", arguments: TransportKind.allCases)
    func invalidation(transport: TransportKind) async throws {
        let origin = try await ToggleServer.start()
        var configuration = Client.Configuration()
        let cache = HTTPCache()
        configuration.cache = cache
        let counting = CountingTransport(transport.makeTransport())
        let client = Client(
            baseURL: try #require(URL(string: "http://127.0.0.1:\(origin.port)")),
            transport: counting,
            configuration: configuration
        )
        _ = try await fetch(client, Cached(path: "/doc"))
        #expect(await cache.store.responses(for: "GET http://127.0.0.1:\(origin.port)/doc").count == 1)
        struct Post: Endpoint {
            typealias Response = Void
            var method: HTTPRequest.Method = .post
            var path: Path = "/doc"
        }
        try await client.send(Post())
        #expect(await cache.store.responses(for: "GET http://127.0.0.1:\(origin.port)/doc").isEmpty)
        let (_, outcome) = try await fetch(client, Cached(path: "/doc"))
        #expect(outcome == .miss)
        try await client.shutdown()
        await origin.stop()
    }
}
