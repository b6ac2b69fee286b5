// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/CachingAndCookies.md, compiled and run against the demo server.
// The article's first block defines the reader's `baseURL`; it is compiled here, and the suites use the test demo
// server's own.
enum DocCCachingAndCookies {
struct Report: Decodable, Sendable, Equatable {
    let title: String
    let pages: Int
}

struct GetReport: Endpoint {
    typealias Response = Report
    var headers: Headers = [:]
    var path: Path { "/report" }
}

/// `/status/200` with these header fields ("Name: value") and a short text body.
struct Answer: Endpoint {
    typealias Response = String
    var fields: [String] = []
    var path: Path { "/status/200" }
    var query: Query { Query(fields.map { QueryItem("header", $0) } + [QueryItem("body", "fresh")]) }
}

struct EchoedRequest: Decodable, Sendable {
    let headers: [[String]]   // [lower-case name, value]
    let bodyLength: Int

    func values(of name: String) -> [String] {
        headers.filter { $0.first == name.lowercased() }.compactMap(\.last)
    }
}

struct Echo: Endpoint {
    typealias Response = EchoedRequest
    var upload: String? = nil
    var method: HTTPRequest.Method { upload == nil ? .get : .post }
    var path: Path { "/echo" }
    var body: RequestBody { upload.map { .text($0) } ?? .none }
}

    /// The article's `baseURL`, as a reader writes it (compiled, not run: the tests' server has its own port).
    static func readersBaseURL() -> URL {
let baseURL = URL(string: "http://127.0.0.1:8080")!   // swift run parley demo --serve --port 8080
        return baseURL
    }
}

extension DocCCachingAndCookies {
    @Suite("DocC: Caching and cookies", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a private cache in memory: a miss, then a hit")
        func memoryCache() async throws {
            try await withDocServer { baseURL, _ in
var configuration = Client.Configuration()
configuration.cache = HTTPCache()   // in memory, private to this client
let cached = Client(baseURL: baseURL, configuration: configuration)
let (report, firstHead) = try await cached.response(for: GetReport())
let (_, secondHead) = try await cached.response(for: GetReport())
print(report.title, HTTPCache.outcome(of: firstHead)!, HTTPCache.outcome(of: secondHead)!)   // Quarterly report miss hit
                #expect(HTTPCache.outcome(of: firstHead) == .miss)
                #expect(HTTPCache.outcome(of: secondHead) == .hit)
            }
        }

        @Test("stale-while-revalidate answers at once, then revalidates")
        func staleWhileRevalidate() async throws {
            try await withDocServer { baseURL, _ in
let swr = HTTPCache()
var feedConfiguration = Client.Configuration()
feedConfiguration.cache = swr
let feeds = Client(baseURL: baseURL, configuration: feedConfiguration)
let latest = Answer(fields: ["Cache-Control: max-age=0, stale-while-revalidate=60"])
let (_, head1) = try await feeds.response(for: latest)
let (_, head2) = try await feeds.response(for: latest)   // stale at once, revalidated in the background
await swr.waitForRevalidations()
print(HTTPCache.outcome(of: head1)!, HTTPCache.outcome(of: head2)!)   // miss stale
                #expect(HTTPCache.outcome(of: head1) == .miss)
                #expect(HTTPCache.outcome(of: head2) == .stale)
            }
        }

        @Test("a disk store, read again by a later cache on the same folder")
        func diskStore() async throws {
            try await withDocServer { baseURL, _ in
let cacheFolder = FileManager.default.temporaryDirectory.appending(path: "reports-\(UUID().uuidString)")
let firstRun = HTTPCache(store: DiskCacheStore(folder: cacheFolder, maxSize: 64 * 1024 * 1024))
var onDisk = Client.Configuration()
onDisk.cache = firstRun
_ = try await Client(baseURL: baseURL, configuration: onDisk).send(GetReport())
await firstRun.waitForRevalidations()   // the answer read to its end is on disk now

onDisk.cache = HTTPCache(store: DiskCacheStore(folder: cacheFolder))   // as a later run of the program would
let (_, later) = try await Client(baseURL: baseURL, configuration: onDisk).response(for: GetReport())
print(HTTPCache.outcome(of: later)!)   // hit
                #expect(HTTPCache.outcome(of: later) == .hit)
                try? FileManager.default.removeItem(at: cacheFolder)
            }
        }

        @Test("a sensitive field of one's own separates the users' answers")
        func credentialsInTheVariant() async throws {
            try await withDocServer { baseURL, _ in
var perUser = Client.Configuration()
perUser.cache = HTTPCache()
perUser.sensitiveFields = SensitiveFields().adding(headerFields: ["X-Session"])
let backend = Client(baseURL: baseURL, configuration: perUser)
var outcomes: [String] = []
for session in ["ada", "grace", "ada"] {
    let (_, head) = try await backend.response(for: GetReport(headers: ["X-Session": session]))
    outcomes.append(HTTPCache.outcome(of: head)!.rawValue)
}
print(outcomes)   // ["miss", "miss", "hit"]: grace never gets ada's answer
                #expect(outcomes == ["miss", "miss", "hit"])
            }
        }

        @Test("a shared cache keeps no private answer")
        func sharedCache() async throws {
            try await withDocServer { baseURL, _ in
var shared = Client.Configuration()
shared.cache = HTTPCache(isShared: true)
let gateway = Client(baseURL: baseURL, configuration: shared)
let personal = Answer(fields: ["Cache-Control: private, max-age=60"])
let (_, one) = try await gateway.response(for: personal)
let (_, two) = try await gateway.response(for: personal)
print(HTTPCache.outcome(of: one)!, HTTPCache.outcome(of: two)!)   // miss miss: a shared cache keeps no private answer
                #expect(HTTPCache.outcome(of: two) == .miss)
                var privateCache = Client.Configuration()
                privateCache.cache = HTTPCache()
                let browser = Client(baseURL: baseURL, configuration: privateCache)
                _ = try await browser.response(for: personal)
                let (_, again) = try await browser.response(for: personal)
                #expect(HTTPCache.outcome(of: again) == .hit)
            }
        }

        @Test("a cookie jar: stored, sent back, inserted, refused, saved and read again")
        func cookies() async throws {
            try await withDocServer { baseURL, _ in
let jar = CookieJar()
var browsing = Client.Configuration()
browsing.cookies = jar
let site = Client(baseURL: baseURL, configuration: browsing)
_ = try await site.send(Answer(fields: ["Set-Cookie: session=abc123; Path=/; HttpOnly", "Set-Cookie: theme=dark; Path=/"]))
print(jar.cookies.map(\.name))                                    // ["session", "theme"]
print(try await site.send(Echo()).values(of: "Cookie"))          // ["session=abc123; theme=dark"]
                #expect(jar.cookies.map(\.name) == ["session", "theme"])
                #expect(try await site.send(Echo()).values(of: "Cookie") == ["session=abc123; theme=dark"])
print(jar.insert(Cookie(name: "consent", value: "yes", domain: "127.0.0.1")))            // true
print(jar.insert(Cookie(name: "theme", value: "light; admin=true", domain: "127.0.0.1")))  // false: refused
let cookieFile = FileManager.default.temporaryDirectory.appending(path: "cookies-\(UUID().uuidString).json")
try jar.save(to: cookieFile)
let nextRun = try CookieJar(contentsOf: cookieFile)
print(nextRun.cookieHeader(for: baseURL) ?? "")   // session=abc123; theme=dark; consent=yes
                #expect(nextRun.cookieHeader(for: baseURL) == "session=abc123; theme=dark; consent=yes")
                try? FileManager.default.removeItem(at: cookieFile)
            }
        }

        @Test("coalescing after the credentials")
        func coalescing() async throws {
            // A server that numbers its answers and holds the first: without coalescing, two requests and two reports.
            let report = { @Sendable (n: Int) in #"{"title": "Quarterly report", "pages": \#(n)}"# }
            try await CountingServer.run(answer: report) { server in
                let baseURL = server.baseURL
let dashboard = Client(baseURL: baseURL, middlewares: [.apiKey("demo-key", header: "X-API-Key"), .coalescing()])
async let left = dashboard.send(GetReport())
async let right = dashboard.send(GetReport())   // waits for the first one's answer if it is still in flight
let (a, b) = try await (left, right)
print(a == b)   // true
                #expect(a == b)
                #expect(a.pages == 1)
                #expect(server.count == 1)
            }
        }

        @Test("a deflated upload")
        func compressedUpload() async throws {
            try await withDocServer { baseURL, _ in
let uploads = Client(baseURL: baseURL, middlewares: [.compressingRequests(.deflate, minimumSize: 512)])
let log = String(repeating: "GET /report 200\n", count: 500)
let echoed = try await uploads.send(Echo(upload: log))
print(echoed.values(of: "Content-Encoding"), log.utf8.count, echoed.bodyLength)   // ["deflate"] 8000 60
                #expect(echoed.values(of: "Content-Encoding") == ["deflate"])
                #expect(echoed.bodyLength < log.utf8.count / 10)
            }
        }
    }
}
