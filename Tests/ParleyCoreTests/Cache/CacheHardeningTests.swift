import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import Parley
@testable import ParleyTestSupport

/// An origin of the test's own: `/doc` answers `200` with `Cache-Control: max-age=0` and an `ETag` the first time,
/// then what its `then` query item asks for (`304`, `200`, `swr`: a fresh 200 within a huge stale-while-revalidate),
/// each with `Age: 9223372036854775807`; `/fresh` is cacheable for a minute and counts its requests; `/page`,
/// `/logout`, `/revalidated` and `/echo-cookie` play a session (issue 24, item 4).
private final class HostileCacheOrigin: Sendable {
    let baseURL: URL
    let requests: LockedBox<[String: Int]>
    private let server: TestServer

    private init(baseURL: URL, server: TestServer, requests: LockedBox<[String: Int]>) {
        self.baseURL = baseURL
        self.server = server
        self.requests = requests
    }

    static func start() async throws -> HostileCacheOrigin {
        let requests = LockedBox<[String: Int]>([:])
        @Sendable func count(_ path: String) -> Int {
            requests.mutate {
                $0[path, default: 0] += 1; return $0[path, default: 0]
            }
        }
        @Sendable func text(_ body: String, _ fields: [(String, String)], status: HTTPResponse.Status = .ok) -> Response {
            var response = Response(status: status, body: ResponseBody(byteBuffer: .init(string: body)))
            for (name, value) in fields {
                if let name = HTTPField.Name(name) { response.headers.append(HTTPField(name: name, value: value)) }
            }
            return response
        }
        let huge = "9223372036854775807"
        let router = Router(context: BasicRequestContext.self)
        router.get("doc") { request, _ -> Response in
            let number = count("doc")
            let then = request.uri.queryParameters.get("then") ?? "304"
            if number == 1 {
                return text("first", [("Cache-Control", "max-age=0"), ("ETag", "\"v1\""), ("Content-Type", "text/plain")])
            }
            switch then {
            case "200":
                return text("again", [("Cache-Control", "max-age=0"), ("ETag", "\"v1\""), ("Age", huge)])
            case "swr":
                let control = "max-age=99999999999999999999, stale-while-revalidate=99999999999999999999999"
                return text("again", [("Cache-Control", control), ("ETag", "\"v1\""), ("Age", huge)])
            default:
                return text("", [("ETag", "\"v1\""), ("Age", huge)], status: .notModified)
            }
        }
        router.get("fresh") { _, _ -> Response in
            let number = count("fresh")
            return text("fresh \(number)", [("Cache-Control", "max-age=60"), ("Content-Type", "text/plain")])
        }
        router.get("swr-large") { _, _ -> Response in
            let number = count("swr-large")
            let body = String(repeating: number == 1 ? "a" : "b", count: 100_000)
            return text(body, [("Cache-Control", "max-age=0, stale-while-revalidate=60"), ("Content-Type", "text/plain")])
        }
        router.get("page") { _, _ -> Response in
            _ = count("page")
            return text("page", [("Cache-Control", "max-age=60"), ("Set-Cookie", "sid=SECRET1; Path=/")])
        }
        router.get("revalidated") { request, _ -> Response in
            // The first 304 sets no cookie, the next ones one of their own.
            let number = count("revalidated")
            if request.headers[.ifNoneMatch] == "\"r1\"" {
                let cookies = number <= 2 ? [] : [("Set-Cookie", "theme=dark; Path=/")]
                return text("", [("ETag", "\"r1\"")] + cookies, status: .notModified)
            }
            return text("page", [("Cache-Control", "max-age=0"), ("ETag", "\"r1\""), ("Set-Cookie", "sid=SECRET2; Path=/")])
        }
        router.get("logout") { _, _ -> Response in
            text("bye", [("Cache-Control", "no-store"), ("Set-Cookie", "sid=; Max-Age=0; Path=/")])
        }
        router.get("echo-cookie") { request, _ -> Response in
            text(request.headers[.cookie] ?? "", [("Cache-Control", "no-store")])
        }
        let server = try await TestServer.start(router, label: "parley.cache-hardening")
        let baseURL = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        return HostileCacheOrigin(baseURL: baseURL, server: server, requests: requests)
    }

    func stop() async {
        await server.stop()
    }
}

private struct Text: Endpoint {
    typealias Response = String
    var path: Path
    var query: Query = []
    var timeout: Duration?
}

/// A client of `origin` with `cache` (and `cookies`), over AsyncHTTPClient.
private func cachingClient(_ origin: HostileCacheOrigin, cache: HTTPCache, cookies: CookieJar? = nil) -> Client {
    var configuration = Client.Configuration(timeout: .seconds(20))
    configuration.cache = cache
    configuration.cookies = cookies
    return Client(baseURL: origin.baseURL, transport: TransportKind.asyncHTTPClient.makeTransport(), configuration: configuration)
}

/// Three GETs of `/doc?then=then`: the second and third are answered with `Age: 9223372036854775807` (in a child
/// process: before the fix, converting that age to `Int` trapped). Every answer from the cache says an age of at most
/// 2^31 s; `fromCache` of them are answered from the cache.
private func fetchWithHugeAge(then: String, fromCache: Int) async throws {
    let origin = try await HostileCacheOrigin.start()
    let cache = HTTPCache()
    let client = cachingClient(origin, cache: cache)
    var answered = 0
    for _ in 0..<3 {
        let (_, response) = try await client.response(for: Text(path: "/doc", query: ["then": .init(then)]))
        guard HTTPCache.outcome(of: response) != .miss else { continue }
        answered += 1
        let age = try #require(response.headerFields[.age].flatMap { Int($0) }, "an answer from the cache has an Age")
        guard age <= HeaderNumber.maxDeltaSeconds else { throw ParleyError(.decoding, "Age \(age) beyond 2^31") }
    }
    guard answered == fromCache else { throw ParleyError(.decoding, "\(answered) answers from the cache, not \(fromCache)") }
    await cache.waitForRevalidations()
    try await client.shutdown()
    await origin.stop()
}

/// What a test changes in a stored entry (a JSON object of ``CachedResponse``'s coding keys).
private let tamperings: [(String, @Sendable (inout [String: Any]) -> Void)] = [
    ("status 999999", { $0["status"] = 999_999 }),
    ("status -5", { $0["status"] = -5 }),
    ("status 42", { $0["status"] = 42 }),
    ("a field of one element", { $0["fields"] = [["ETag"]] }),
    ("a field name with a space", { $0["fields"] = [["Bad Name", "x"]] }),
    ("a field value with CR LF", { $0["fields"] = [["X-A", "a\r\nSet-Cookie: evil=1"]] }),
    ("a reason phrase with LF", { $0["reasonPhrase"] = "OK\nX: y" }),
    ("a time beyond year 9999", { $0["responseTime"] = 1e300 }),
    ("a varied name that is not a token", { $0["varied"] = ["bad name": "x"] }),
    ("a status that is not a number", { $0["status"] = "two hundred" }),
]

/// Stores `/fresh` in a ``DiskCacheStore`` under a new folder, tampers its file each way of ``tamperings``, and checks
/// that the next process's cache (a new store on the same folder) treats it as a miss and removes it (in a child
/// process: before the fix, a status out of range trapped in `HTTPResponse.Status(code:)`).
private func readTamperedEntries() async throws {
    let origin = try await HostileCacheOrigin.start()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = "GET " + origin.baseURL.absoluteString + "/fresh"
    for (name, tamper) in tamperings {
        let writer = HTTPCache(store: DiskCacheStore(folder: folder))
        let first = cachingClient(origin, cache: writer)
        _ = try await first.send(Text(path: "/fresh"))
        await writer.waitForRevalidations()
        try await first.shutdown()
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        let file = try #require(files.first { $0.pathExtension == "parley-cache" }, "stored")
        var saved = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var entries = try #require(saved["responses"] as? [[String: Any]])
        tamper(&entries[0])
        saved["responses"] = entries
        try JSONSerialization.data(withJSONObject: saved).write(to: file)

        // The next run: the tampered entry is a miss, and goes.
        let store = DiskCacheStore(folder: folder)
        guard await store.responses(for: key).isEmpty, !FileManager.default.fileExists(atPath: file.path) else {
            throw ParleyError(.decoding, "\(name): the tampered entry was read back, or its file kept")
        }
        try JSONSerialization.data(withJSONObject: saved).write(to: file)
        let before = origin.requests.value["fresh", default: 0]
        let client = cachingClient(origin, cache: HTTPCache(store: store))
        let (_, response) = try await client.response(for: Text(path: "/fresh"))
        guard HTTPCache.outcome(of: response) == .miss, origin.requests.value["fresh"] == before + 1 else {
            throw ParleyError(.decoding, "\(name): answered from the tampered entry")
        }
        try await client.shutdown()
        try FileManager.default.removeItem(at: folder)
    }
    await origin.stop()
}

@Suite("The HTTP cache against hostile numbers, files and bodies (issue 24, items 1, 2, 4 and 9)", .timeLimit(.minutes(1)))
struct CacheHardeningTests {
    // MARK: Item 1: numbers parsed saturating

    @Test("a 304 revalidation answered with Age: 9223372036854775807 does not crash the process")
    func hugeAgeOn304() async {
        await #expect(processExitsWith: .success) { try await fetchWithHugeAge(then: "304", fromCache: 2) }
    }

    @Test("a 200 revalidation answered with Age: 9223372036854775807 does not crash the process")
    func hugeAgeOn200() async {
        await #expect(processExitsWith: .success) { try await fetchWithHugeAge(then: "200", fromCache: 0) }
    }

    @Test("a huge Age within a huge stale-while-revalidate does not crash the process")
    func hugeAgeWithinStaleWhileRevalidate() async {
        await #expect(processExitsWith: .success) { try await fetchWithHugeAge(then: "swr", fromCache: 1) }
    }

    @Test("every header number is read by one saturating parser")
    func saturatingParser() {
        #expect(HeaderNumber.nonNegative("60") == 60)
        #expect(HeaderNumber.nonNegative(" \t7 ") == 7)
        #expect(HeaderNumber.nonNegative("9223372036854775807") == .max)
        #expect(HeaderNumber.nonNegative(String(repeating: "9", count: 4000)) == .max)
        #expect(HeaderNumber.nonNegative("99999", saturatingAt: 100) == 100)
        #expect(HeaderNumber.deltaSeconds("9223372036854775808") == 2_147_483_648)
        for bad in ["", " ", "-1", "+1", "1.5", "1 2", "0x10", "١٢", "12a", String(repeating: "9", count: 100) + "x"] {
            #expect(HeaderNumber.nonNegative(bad) == nil, "\(bad)")
        }
        #expect(Int(saturating: 1e300) == .max)
        #expect(Int(saturating: -.infinity) == .min)
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: 9_223_372_036_854_775_807.0) == .max)
        #expect(Int(saturating: 42.9) == 42)
        #expect(CacheControl(["max-age=99999999999999999999999999"]).seconds("max-age") == 2_147_483_648)
        #expect(CacheControl(["max-age=\"60\""]).seconds("max-age") == 60)
        #expect(CacheControl(["max-age=-1"]).seconds("max-age") == nil)
    }

    @Test("a huge Retry-After is a very long wait, not a crash nor a retry")
    func hugeRetryAfter() {
        let huge = String(repeating: "9", count: 500)
        #expect(RetryPolicy.retryAfterDelay(huge) == .seconds(Int.max))
        #expect(RetryPolicy.retryAfterDelay("9223372036854775808") == .seconds(Int.max))
        #expect((RetryPolicy.retryAfterDelay(huge) ?? .zero) > RetryPolicy().maxRetryAfter)
        #expect(RetryPolicy.retryAfterDelay("Fri, 31 Dec 9999 23:59:59 GMT").map { $0 > .seconds(200_000_000_000) } == true)
    }

    // MARK: Item 2: a tampered disk entry

    @Test("a tampered DiskCacheStore entry (status 999999, -5, bad fields, times) is a miss and is removed")
    func tamperedDiskEntry() async {
        await #expect(processExitsWith: .success) { try await readTamperedEntries() }
    }

    @Test("a custom store's invalid entry is a miss and is removed, not a trap")
    func invalidEntryInAnyStore() async throws {
        let origin = try await HostileCacheOrigin.start()
        let store = MemoryCacheStore()
        let cache = HTTPCache(store: store)
        let client = cachingClient(origin, cache: cache)
        _ = try await client.send(Text(path: "/fresh"))
        await cache.waitForRevalidations()
        let key = "GET " + origin.baseURL.absoluteString + "/fresh"
        var entries = await store.responses(for: key)
        try #require(entries.count == 1 && entries[0].isValid)
        entries[0].status = 1_000
        await store.store(entries, for: key)
        let (_, response) = try await client.response(for: Text(path: "/fresh"))
        #expect(HTTPCache.outcome(of: response) == .miss)
        #expect(await store.responses(for: key).allSatisfy(\.isValid))
        try await client.shutdown()
        await origin.stop()
    }

    // MARK: Item 4: a stored Set-Cookie is not applied again

    @Test("a cache hit does not bring back a session cookie deleted since (Set-Cookie is not replayed)")
    func deletedSessionStaysDeleted() async throws {
        let origin = try await HostileCacheOrigin.start()
        let jar = CookieJar()
        let client = cachingClient(origin, cache: HTTPCache(), cookies: jar)
        _ = try await client.send(Text(path: "/page"))
        #expect(try await client.send(Text(path: "/echo-cookie")).contains("sid=SECRET1"))
        _ = try await client.send(Text(path: "/logout"))
        let (_, hit) = try await client.response(for: Text(path: "/page"))
        #expect(HTTPCache.outcome(of: hit) == .hit)
        #expect(hit.headerFields[.setCookie] == nil)
        let cookie = try await client.send(Text(path: "/echo-cookie"))
        #expect(!cookie.contains("SECRET1"), "the deleted session came back: \(cookie)")
        #expect(origin.requests.value["page"] == 1)
        try await client.shutdown()
        await origin.stop()
    }

    @Test("a 304 revalidation applies the 304's own Set-Cookie, never the stored one")
    func revalidationAppliesOnlyItsOwnCookies() async throws {
        let origin = try await HostileCacheOrigin.start()
        let jar = CookieJar()
        let client = cachingClient(origin, cache: HTTPCache(), cookies: jar)
        _ = try await client.send(Text(path: "/revalidated"))
        _ = try await client.send(Text(path: "/logout"))
        let (_, revalidated) = try await client.response(for: Text(path: "/revalidated"))
        #expect(HTTPCache.outcome(of: revalidated) == .revalidated)
        let cookie = try await client.send(Text(path: "/echo-cookie"))
        #expect(!cookie.contains("SECRET2"), "the stored Set-Cookie was applied again: \(cookie)")
        let (_, again) = try await client.response(for: Text(path: "/revalidated"))
        #expect(HTTPCache.outcome(of: again) == .revalidated)
        let cookies = try await client.send(Text(path: "/echo-cookie"))
        #expect(!cookies.contains("SECRET2"), "the stored Set-Cookie was applied again: \(cookies)")
        #expect(cookies.contains("theme=dark"), "the 304's own Set-Cookie was not applied: \(cookies)")
        try await client.shutdown()
        await origin.stop()
    }

    // MARK: Item 9: stored while the caller reads

    /// The fault server's `/dribble-body` is cacheable (max-age=60) and sends a million bytes a byte every 20 ms.
    @Test("a cacheable body dribbled a byte at a time fails a buffered call at its timeout, not after the dribble")
    func dribbledCacheableBodyTimesOut() async throws {
        var configuration = Client.Configuration(timeout: .seconds(40))
        configuration.cache = HTTPCache()
        try await withFaultClient(.asyncHTTPClient, configuration: configuration) { client, _ in
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) {
                try await client.send(FaultCall<Data>(path: "/dribble-body", query: ["interval": "20"], timeout: .seconds(1)))
            }
            #expect(error != nil)
            #expect(ContinuousClock.now - started < .seconds(15))
        }
    }

    @Test("a cacheable body dribbled a byte at a time fails at responseBodyTimeout under the cache")
    func dribbledCacheableBodyMeetsBodyTimeout() async throws {
        var configuration = Client.Configuration(responseBodyTimeout: .milliseconds(500))
        configuration.cache = HTTPCache()
        try await withFaultClient(.asyncHTTPClient, configuration: configuration) { client, _ in
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) {
                try await client.send(FaultCall<Data>(path: "/dribble-body", query: ["interval": "20"]))
            }
            #expect(error?.message.contains("responseBodyTimeout") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(15))
        }
    }

    @Test("stream(_:) of a cacheable dribbled body returns its head before the body ends")
    func streamedCacheableBodyHeadComesFirst() async throws {
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache()
        try await withFaultClient(.asyncHTTPClient, configuration: configuration) { client, _ in
            // The body (a million bytes, one every 20 ms) outlasts the call's 10 s timeout by hours: a cache that read it
            // whole before handing on the head fails this call with a timeout.
            let streamed = try await client.stream(
                FaultCall<Data>(path: "/dribble-body", query: ["interval": "20"], timeout: .seconds(10))
            )
            var received = 0
            for try await chunk in streamed.body {
                received += chunk.count
                if received >= 3 { break }
            }
            #expect(received >= 3)
        }
    }

    @Test("a background revalidation (stale-while-revalidate) stores a new body larger than what a drain reads")
    func backgroundRevalidationStoresLargeBody() async throws {
        let origin = try await HostileCacheOrigin.start()
        let cache = HTTPCache()
        let client = cachingClient(origin, cache: cache)
        #expect(try await client.send(Text(path: "/swr-large")).hasPrefix("a"))
        let (stale, head) = try await client.response(for: Text(path: "/swr-large"))
        #expect(HTTPCache.outcome(of: head) == .stale && stale.hasPrefix("a"))
        await cache.waitForRevalidations()
        let (renewed, renewedHead) = try await client.response(for: Text(path: "/swr-large"))
        #expect(HTTPCache.outcome(of: renewedHead) == .stale)
        #expect(renewed.hasPrefix("b") && renewed.count == 100_000, "the revalidated body was not stored")
        await cache.waitForRevalidations()
        try await client.shutdown()
        await origin.stop()
    }

    @Test("a body read to its end is stored and answered as a hit; one dropped or too large is not stored")
    func storedWhenReadWhole() async throws {
        let origin = try await HostileCacheOrigin.start()
        let cache = HTTPCache()
        let client = cachingClient(origin, cache: cache)
        let (first, firstHead) = try await client.response(for: Text(path: "/fresh"))
        #expect(HTTPCache.outcome(of: firstHead) == .miss)
        let (second, secondHead) = try await client.response(for: Text(path: "/fresh"))
        #expect(HTTPCache.outcome(of: secondHead) == .hit)
        #expect(first == "fresh 1" && second == first)
        #expect(origin.requests.value["fresh"] == 1)

        // A stream dropped before its end stores nothing.
        let dropping = HTTPCache()
        let droppingClient = cachingClient(origin, cache: dropping)
        do {
            _ = try await droppingClient.stream(Text(path: "/fresh"))
        }
        await dropping.waitForRevalidations()
        let (_, afterDrop) = try await droppingClient.response(for: Text(path: "/fresh"))
        #expect(HTTPCache.outcome(of: afterDrop) == .miss)

        // A body above maxEntrySize streams through unstored.
        let small = HTTPCache(maxEntrySize: 3)
        let smallClient = cachingClient(origin, cache: small)
        _ = try await smallClient.send(Text(path: "/fresh"))
        await small.waitForRevalidations()
        let (_, tooLarge) = try await smallClient.response(for: Text(path: "/fresh"))
        #expect(HTTPCache.outcome(of: tooLarge) == .miss)

        for client in [client, droppingClient, smallClient] { try await client.shutdown() }
        await origin.stop()
    }
}
