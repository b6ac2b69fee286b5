#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Parley
import ParleyAsyncHTTPClient

/// The demo server's `/flaky`: fails twice with 503 (the first time with `Retry-After: 1`), then answers.
struct FlakyStatus: Endpoint {
    struct Answer: Decodable, Sendable {
        let key: String
        let attempts: Int
    }
    typealias Response = Answer
    let key: String
    var path: Path { "/flaky" }
    var query: Query { ["key": key, "failures": "2", "retry-after": "1"] }
}

extension DemoWalkthrough {
    /// A flaky endpoint that succeeds after retries, each attempt printed.
    func resilience(_ url: URL) async throws {
        print("→ GET /flaky (fails twice with 503 and Retry-After: 1, then answers), with .retry(maxAttempts: 4)")
        let retry = RetryMiddleware(
            RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(100)),
            onRetry: { event in print("  \(event)") }
        )
        let client = Client(baseURL: url, headers: ["User-Agent": "parley-demo/1.0"], middlewares: [retry])
        let answer = try await client.send(FlakyStatus(key: UUID().uuidString))
        print("  succeeded on attempt \(answer.attempts)\n")
    }
}
