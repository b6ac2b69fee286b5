// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/Middleware.md, compiled and run against the demo server.

struct CorrelationIDMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if request.headerFields[.correlationID] == nil {
            request.headerFields[.correlationID] = UUID().uuidString
        }
        return try await next(request, body, baseURL)
    }
}

extension HTTPField.Name {
    static let correlationID = HTTPField.Name("X-Correlation-ID")!   // a valid field name: never nil
}

extension ClientMiddleware where Self == CorrelationIDMiddleware {
    static var correlationID: CorrelationIDMiddleware { CorrelationIDMiddleware() }
}

enum DocCMiddleware {
    struct TokenReply: Decodable, Sendable {
        let accessToken: String
        let expiresIn: Int?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    struct IssueToken: Endpoint {
        typealias Response = TokenReply
        var method: HTTPRequest.Method { .post }
        var path: Path { "/auth/token" }
    }

    struct WhoAmI: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/me" }
    }

    struct User: Codable, Equatable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct Echoed: Decodable, Sendable {
        let headers: [[String]]   // [name, value] pairs, names in lowercase
        let bodyLength: Int
    }

    struct PostEcho: Endpoint {
        typealias Response = Echoed
        let body: RequestBody
        var method: HTTPRequest.Method { .post }
        var path: Path { "/echo" }
    }

    struct Report: Codable, Equatable, Sendable {
        let title: String
        let pages: Int
    }

    struct GetReport: Endpoint {   // the demo server's /report: fresh for a minute, then revalidated by its ETag
        typealias Response = Report
        var path: Path { "/report" }
    }

    struct SetsTwoCookies: Endpoint {   // the demo server's /headers/multi: Set-Cookie a=1 and b=2
        typealias Response = Data
        var path: Path { "/headers/multi" }
    }

    struct AttemptLog: ClientMiddleware {
        let report: @Sendable (String) -> Void

        func intercept(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            let name = CallContext.current?.endpointName ?? operationID
            let attempt = CallContext.current?.attempt ?? 1
            do {
                let (response, responseBody) = try await next(request, body, baseURL)
                report("\(name) attempt \(attempt): \(response.status.code)")
                return (response, responseBody)
            } catch {
                report("\(name) attempt \(attempt) failed: \(error)")
                throw error
            }
        }
    }

    struct Flaky: Endpoint {
        typealias Response = JSONValue
        let key: String
        var path: Path { "/flaky" }
        var query: Query { ["key": key, "failures": "2"] }
    }

    struct OfflineMode: ClientMiddleware {
        struct Offline: Error, CustomStringConvertible {
            var description: String { "the app is offline" }
        }

        let isOffline: @Sendable () -> Bool

        func intercept(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            guard !isOffline() else { throw Offline() }
            return try await next(request, body, baseURL)
        }
    }

    struct EchoHeaders: Endpoint {
        typealias Response = JSONValue
        var path: Path { "/echo" }
    }
}

extension DocCMiddleware {
    @Suite("DocC: Middleware", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("retries before auth; a correlation-ID middleware with its static factory")
        func orderAndCorrelationID() async throws {
            try await withDocServer { baseURL, _ in
let tokens = Client(baseURL: baseURL)   // without the auth middleware: a refresh must not wait for itself
let client = Client(
    baseURL: baseURL,
    middlewares: [
        .retry(maxAttempts: 3),
        .bearerAuth { _ in AccessToken(try await tokens.send(IssueToken()).accessToken, expiresIn: nil) },
    ]
)
print(try await client.send(WhoAmI())["subject"] ?? "")   // demo
                #expect(try await client.send(WhoAmI())["subject"] == "demo")

                let traced = Client(baseURL: baseURL, middlewares: [.correlationID])
                let echo = try await traced.send(EchoHeaders())
                let sent = echo["headers"]?.arrayValues.first { $0[0]?.stringValue == "x-correlation-id" }?[1]?.stringValue
                #expect(sent.flatMap(UUID.init(uuidString:)) != nil)
            }
        }

        @Test("an HTTP cache answers fresh responses from memory")
        func caching() async throws {
            try await withDocServer { baseURL, _ in
var cached = Client.Configuration()
cached.cache = HTTPCache(store: MemoryCacheStore(maxSize: 16 * 1024 * 1024))
let reports = Client(baseURL: baseURL, configuration: cached)
let (first, firstHead) = try await reports.response(for: GetReport())
let (second, secondHead) = try await reports.response(for: GetReport())
let outcomes = [firstHead, secondHead].compactMap { HTTPCache.outcome(of: $0)?.rawValue }
print(first == second, outcomes)   // true ["miss", "hit"]
                #expect(first == second)
                #expect(HTTPCache.outcome(of: firstHead) == .miss && HTTPCache.outcome(of: secondHead) == .hit)
            }
        }

        @Test("identical requests in flight share one")
        func coalescing() async throws {
            // A server that numbers its answers and holds the first: without coalescing, two requests and two names.
            let user = { @Sendable (n: Int) in #"{"id": 1, "name": "Ada (answer \#(n))", "email": "ada@example.com"}"# }
            try await CountingServer.run(answer: user) { server in
                let baseURL = server.baseURL
let shared = Client(baseURL: baseURL, middlewares: [.coalescing()])
async let first = shared.send(GetUser(id: 1))
async let second = shared.send(GetUser(id: 1))   // no second request while the first is in flight
let (one, two) = try await (first, second)
print(one == two)   // true
                #expect(one == two)
                #expect(one.name == "Ada (answer 1)")
                #expect(server.count == 1)
            }
        }

        @Test("request bodies compressed above a size")
        func compressedBodies() async throws {
            try await withDocServer { baseURL, _ in
let compressing = Client(baseURL: baseURL, middlewares: [.compressingRequests(.gzip, minimumSize: 1024)])
let report = String(repeating: "a line of a long report\n", count: 1000)
let echoed = try await compressing.send(PostEcho(body: .text(report)))
let encoding = echoed.headers.first { $0[0] == "content-encoding" }?[1]
print(encoding ?? "none", echoed.bodyLength)   // gzip 118
                #expect(encoding == "gzip")
                #expect(echoed.bodyLength < 1000)
            }
        }

        @Test("cookies kept by a jar for a client, saved to a file and read back")
        func cookies() async throws {
            try await withDocServer { baseURL, _ in
let cookieFile = URL.temporaryDirectory.appending(path: "cookies-\(UUID().uuidString).json")
let jar = CookieJar()
var configuration = Client.Configuration()
configuration.cookies = jar
let browsing = Client(baseURL: baseURL, configuration: configuration)
_ = try await browsing.response(for: SetsTwoCookies())
print(jar.cookies.map(\.name))                         // ["a", "b"]
let below = baseURL.appending(path: "headers/other")   // set by /headers/multi: their path is /headers
print(jar.cookieHeader(for: below) ?? "")              // a=1; b=2
try jar.save(to: cookieFile)                           // readable by its owner only
let restored = try CookieJar(contentsOf: cookieFile)
print(restored.cookies.count)                          // 2
                try? FileManager.default.removeItem(at: cookieFile)
                #expect(jar.cookieHeader(for: below) == "a=1; b=2")
                #expect(jar.cookieHeader(for: baseURL) == nil)
                #expect(restored.cookies.count == 2)
                try await browsing.shutdown()
            }
        }

        @Test("CallContext: a middleware after the retry middleware sees every attempt")
        func attempts() async throws {
            try await withDocServer { baseURL, _ in
                let retrying = Client(
                    baseURL: baseURL,
                    middlewares: [
                        .retry(RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10))),
                        AttemptLog { print($0) },
                    ]
                )
                _ = try await retrying.send(Flaky(key: UUID().uuidString))
                // Flaky attempt 1: 503
                // Flaky attempt 2: 503
                // Flaky attempt 3: 200
                let lines = LockedBox<[String]>([])
                let recorded = Client(
                    baseURL: baseURL,
                    middlewares: [
                        .retry(RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10))),
                        AttemptLog { line in lines.mutate { $0.append(line) } },
                    ]
                )
                _ = try await recorded.send(Flaky(key: UUID().uuidString))
                #expect(lines.value == ["Flaky attempt 1: 503", "Flaky attempt 2: 503", "Flaky attempt 3: 200"])
            }
        }

        @Test("a middleware that refuses fails the call as a middleware error, its own error kept")
        func refuse() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let offline = Client(baseURL: baseURL, middlewares: [OfflineMode { true }])
            do {
                _ = try await offline.send(Flaky(key: "offline"))
            } catch {
                print(error.kind, error.underlying is OfflineMode.Offline)   // middleware true
            }
            let error = await #expect(throws: ParleyError.self) { try await offline.send(Flaky(key: "offline")) }
            #expect(error?.kind == .middleware)
            #expect(error?.underlying is OfflineMode.Offline)
            #expect(error?.description.contains("the app is offline") == true)
        }
    }
}

extension JSONValue {
    /// The elements of an array, or none.
    fileprivate var arrayValues: [JSONValue] {
        if case .array(let values) = self { return values }
        return []
    }
}
