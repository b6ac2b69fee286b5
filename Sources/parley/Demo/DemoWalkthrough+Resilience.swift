import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

/// The demo server's `/auth/me`: who the bearer token belongs to, and which token it was.
struct WhoAmI: Endpoint {
    struct Answer: Decodable, Sendable {
        let subject: String
        let token: String
    }
    typealias Response = Answer
    var path: Path { "/auth/me" }
}

/// The demo server's OAuth-like token endpoint.
struct IssueToken: Endpoint {
    struct Answer: Decodable, Sendable {
        let access_token: String
        let expires_in: Int?
        let number: Int
    }
    typealias Response = Answer
    var method: HTTPRequest.Method { .post }
    var path: Path { "/auth/token" }
}

/// Makes the demo server revoke its current token.
struct RevokeToken: Endpoint {
    typealias Response = Void
    var method: HTTPRequest.Method { .post }
    var path: Path { "/auth/rotate" }
}

/// Prints each attempt that reaches the transport: its number (from `CallContext`) and its status.
struct PrintAttempts: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let attempt = CallContext.current?.attempt ?? 1
        let bearer = request.headerFields[.authorization].map { _ in ", with a bearer token" } ?? ""
        do {
            let (response, responseBody) = try await next(request, body, baseURL)
            print("  attempt \(attempt): \(request.method) \(request.path ?? "/")\(bearer) → \(response.status.code)")
            return (response, responseBody)
        } catch {
            print("  attempt \(attempt): \(request.method) \(request.path ?? "/")\(bearer) → \(error)")
            throw error
        }
    }
}

extension DemoWalkthrough {
    /// A flaky endpoint that succeeds after retries, and a bearer token refreshed after the server revoked it,
    /// each attempt printed.
    func resilience(_ url: URL) async throws {
        let tokens = Client(baseURL: url, headers: ["User-Agent": "parley-demo/1.0"], middlewares: middlewares)
        let retry = RetryMiddleware(
            RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(100)),
            onRetry: { event in print("    \(event)") }
        )
        let auth = BearerAuthMiddleware.bearerAuth { stale in
            let issued = try await tokens.send(IssueToken())
            print("    token provider: \(stale == nil ? "first token" : "refreshing a rejected token") → token #\(issued.number)")
            return AccessToken(issued.access_token, expiresIn: issued.expires_in.map { .seconds($0) })
        }
        let client = Client(
            baseURL: url,
            headers: ["User-Agent": "parley-demo/1.0"],
            middlewares: [retry, auth] + middlewares + [PrintAttempts()]
        )
        print("→ GET /flaky (fails twice with 503 and Retry-After: 1, then answers), with .retry(maxAttempts: 4)")
        let answer = try await client.send(FlakyStatus(key: String(UUID().uuidString.prefix(8))))
        print("  succeeded on attempt \(answer.attempts)\n")

        print("→ GET /auth/me with .bearerAuth { stale in … } (tokens from POST /auth/token)")
        print("  signed in as \(try await client.send(WhoAmI()).subject)")
        try await tokens.send(RevokeToken())
        print("  the server revokes the token; GET /auth/me again:")
        let again = try await client.send(WhoAmI())
        print("  refreshed once and replayed: signed in as \(again.subject) with token #\(again.token)\n")
    }
}
