// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The swift blocks of Sources/Parley/Parley.docc/SecurityAndLimits.md, compiled and run against the demo server.
enum DocCSecurityAndLimits {
    /// The demo server's `/bytes?n=N`: N bytes (not part of the article, which defines no endpoint).
    struct Bytes: Endpoint {
        typealias Response = Data
        let count: Int
        var path: Path { "/bytes" }
        var query: Query { ["n": String(count)] }
    }

    struct User: Decodable, Sendable {
        let id: Int
        let name: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }
}

extension DocCSecurityAndLimits {
    @Suite("DocC: Security and limits", .timeLimit(.minutes(1)))
    struct Examples {
        func clientForAnUntrustedServer(baseURL: URL) -> Client {
            var configuration = Client.Configuration(
                timeout: .seconds(30),                // the whole call, retries included
                maxResponseBodySize: 1 << 20,         // 1 MiB instead of 32
                responseHeadTimeout: .seconds(10),
                streamIdleTimeout: .seconds(15),
                responseBodyTimeout: .seconds(30),
                maxDownloadSize: 100 << 20
            )
            configuration.sensitiveFields = .default.adding(headerFields: ["X-Session"], queryItems: ["session"])
            return Client(baseURL: baseURL, configuration: configuration)
        }

        @Test("the tightened client keeps its limits: 1 MiB bodies, secrets added to the defaults")
        func untrustedClient() async throws {
            try await withDocServer { baseURL, _ in
                let client = clientForAnUntrustedServer(baseURL: baseURL)
                let user = try await client.send(GetUser(id: 1))
                let megabyte = try await client.send(Bytes(count: 1 << 20))
                #expect(user.name == "Ada Lovelace" && megabyte.count == 1 << 20)
                let tooLarge = await #expect(throws: ParleyError.self) { try await client.send(Bytes(count: (1 << 20) + 1)) }
                #expect(tooLarge?.kind == .bodyTooLarge)
                #expect(tooLarge != nil)

                let configuration = client.configuration
                #expect(configuration.timeout == .seconds(30))
                #expect(configuration.responseHeadTimeout == .seconds(10))
                #expect(configuration.responseBodyTimeout == .seconds(30))
                #expect(configuration.maxDownloadSize == 100 << 20)
                let fields = configuration.sensitiveFields
                let session = try #require(HTTPField.Name("X-Session"))
                #expect(fields.headerFields.contains(session))
                #expect(fields.headerFields.isSuperset(of: SensitiveFields.defaultHeaderFields))
                #expect(fields.queryItems.contains("session") && fields.queryItems.contains("api_key"))
            }
        }

        @Test("the defaults are the ones the article's table gives")
        func defaults() {
            let configuration = Client.Configuration()
            #expect(configuration.timeout == nil)
            #expect(configuration.responseHeadTimeout == .seconds(60))
            #expect(configuration.responseBodyTimeout == .seconds(300))
            #expect(configuration.streamIdleTimeout == .seconds(60))
            #expect(configuration.maxResponseBodySize == 32 << 20)
            #expect(configuration.decompression?.maxSize == 1 << 30 && configuration.decompression?.maxRatio == 100)
            #expect(configuration.maxDownloadSize == 4 << 30)
            #expect(configuration.maxConcurrentRequests == nil)
            #expect(configuration.redirects.maxRedirects == 5 && !configuration.redirects.allowsDowngrade)
            let retry = RetryPolicy()
            #expect(retry.maxAttempts == 3 && retry.initialBackoff == .milliseconds(200) && retry.maxBackoff == .seconds(10))
            #expect(retry.multiplier == 2 && retry.maxRetryAfter == .seconds(60))
            #expect(retry.deadline == nil && retry.attemptTimeout == nil)
            let budget = RetryBudget()
            #expect(budget.ratio == 0.2 && budget.reserve == 10)
            #expect(JSONValue.defaultMaximumDepth == 512)
            #expect(ParleyError.excerptLimit == 4096)
            let reconnect = ServerSentEventReconnectPolicy()
            #expect(reconnect.initialDelay == .seconds(3) && reconnect.maxDelay == .seconds(60) && reconnect.maxAttempts == 8)
            let jar = CookieJar()
            #expect(jar.maxCookies == 3000 && jar.maxCookiesPerDomain == 50)
            #expect(CookieJar.maxFileSize == 16 << 20)
            #expect(HTTPCache().maxEntrySize == 8 << 20)
            #expect(RequestCoalescingMiddleware().maxSharedBodySize == 8 << 20)
        }
    }
}
