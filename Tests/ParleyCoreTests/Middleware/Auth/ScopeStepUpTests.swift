import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// What `/auth/write` answers.
private struct WriteAnswer: Decodable, Sendable {
    let token: String
    let scope: String
}

/// `GET /auth/write`: needs the current token, with the scope `write`.
private struct WriteCheck: Endpoint {
    typealias Response = WriteAnswer
    var path: Path { "/auth/write" }
}

/// `POST /auth/token?scope=…`.
private struct IssueScoped: Endpoint {
    typealias Response = IssuedToken
    let scopes: [String]
    var method: HTTPRequest.Method { .post }
    var path: Path { "/auth/token" }
    var query: Query { ["scope": scopes.joined(separator: " ")] }
}

/// The protected-resource metadata (RFC 9728) a challenge names, fetched by its absolute URL.
private struct ResourceMetadata: Endpoint {
    struct Document: Decodable, Sendable {
        let resource: String
        let scopes_supported: [String]
    }
    typealias Response = Document
    let url: String
    var path: Path { Path(stringLiteral: URL(string: url)?.path ?? "/") }
}

/// A provider that records every request it is handed and asks the demo server for `grant(request)`'s scopes.
private final class RecordingTokens: AccessTokenProvider {
    let stepsUpScopes: Bool
    private let admin: Client
    private let grant: @Sendable (AccessTokenRequest) -> [String]
    private let seen = LockedState<[AccessTokenRequest]>([])

    init(admin: Client, stepsUp: Bool, grant: @escaping @Sendable (AccessTokenRequest) -> [String]) {
        self.admin = admin
        self.stepsUpScopes = stepsUp
        self.grant = grant
    }

    var requests: [AccessTokenRequest] { seen.withLock { $0 } }

    func token(replacing stale: AccessToken?) async throws -> AccessToken {
        try await token(for: AccessTokenRequest(reason: .refresh, stale: stale))
    }

    func token(for request: AccessTokenRequest) async throws -> AccessToken {
        seen.withLock { $0.append(request) }
        let issued = try await admin.send(IssueScoped(scopes: grant(request)))
        return AccessToken(issued.access_token)
    }
}

@Suite("Bearer auth: the server's challenge and scope step-up (RFC 6750, RFC 9728)", .timeLimit(.minutes(1)))
struct ScopeStepUpTests {
    /// Runs `body` with a demo server, a client with `.bearerAuth(tokens)` and the admin client without auth.
    private func withScopedClient(
        _ transport: TransportKind,
        stepsUp: Bool,
        grant: @escaping @Sendable (AccessTokenRequest) -> [String],
        _ body: (_ client: Client, _ admin: Client, _ tokens: RecordingTokens) async throws -> Void
    ) async throws {
        try await withDemoClient(transport) { admin, server in
            let tokens = RecordingTokens(admin: admin, stepsUp: stepsUp, grant: grant)
            let client = Client(
                baseURL: try #require(URL(string: server.baseURL)),
                transport: transport.makeTransport(),
                middlewares: [.bearerAuth(tokens)],
                configuration: Client.Configuration(timeout: .seconds(30))
            )
            do {
                try await body(client, admin, tokens)
                try await client.shutdown()
            } catch {
                try await client.shutdown()
                throw error
            }
        }
    }

    @Test(
        "a 403 insufficient_scope asks the provider for the scopes the challenge names, once, and replays",
        arguments: TransportKind.allCases
    )
    func stepUp(transport: TransportKind) async throws {
        try await withScopedClient(transport, stepsUp: true, grant: { ["read"] + $0.scopes }) { client, admin, tokens in
            let answer = try await client.send(WriteCheck())
            #expect(answer.scope == "read write")
            #expect(answer.token == "2")
            let requests = tokens.requests
            #expect(requests.map(\.reason) == [.initial, .insufficientScope])
            #expect(requests.last?.status == .forbidden)
            #expect(requests.last?.error == "insufficient_scope")
            #expect(requests.last?.scopes == ["write"])
            #expect(requests.last?.stale != nil)
            // The token with both scopes is kept: the next call needs no step-up.
            #expect(try await client.send(WriteCheck()).token == "2")
            #expect(tokens.requests.count == 2)
            let stats = try await admin.send(GetAuthStats())
            #expect(stats == AuthStats(issued: 2, rotations: 0, accepted: 3, rejected: 0))
        }
    }

    @Test(
        "a provider that does not step up scopes: the 403 is returned as it is, no token spent",
        arguments: TransportKind.allCases
    )
    func noStepUp(transport: TransportKind) async throws {
        try await withScopedClient(transport, stepsUp: false, grant: { _ in ["read"] }) { client, _, tokens in
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(WriteCheck()) }
            #expect(error?.status == .forbidden)
            #expect(tokens.requests.map(\.reason) == [.initial])
        }
    }

    @Test("a step-up that still lacks the scope: the second 403 is returned, nothing loops", arguments: TransportKind.allCases)
    func stepUpBounded(transport: TransportKind) async throws {
        try await withScopedClient(transport, stepsUp: true, grant: { _ in ["read"] }) { client, admin, tokens in
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(WriteCheck()) }
            #expect(error?.status == .forbidden)
            #expect(tokens.requests.map(\.reason) == [.initial, .insufficientScope])
            let stats = try await admin.send(GetAuthStats())
            #expect(stats == AuthStats(issued: 2, rotations: 0, accepted: 2, rejected: 0))
        }
    }

    @Test("a 401's Bearer challenge reaches the provider: error, scope and resource_metadata", arguments: TransportKind.allCases)
    func rejectionChallenge(transport: TransportKind) async throws {
        try await withScopedClient(transport, stepsUp: false, grant: { ["read"] + $0.scopes }) { client, admin, tokens in
            #expect(try await client.send(WhoAmI()).token == "1")
            try await admin.send(RotateToken())
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(WriteCheck()) }
            // Replayed with token 2 ("read"): /auth/write then says 403, which this provider does not step up.
            #expect(error?.status == .forbidden)
            let rejected = try #require(tokens.requests.last)
            #expect(rejected.reason == .rejected)
            #expect(rejected.status == .unauthorized)
            #expect(rejected.error == "invalid_token")
            #expect(rejected.scopes == ["read"])
            let metadata = try #require(rejected.resourceMetadata)
            #expect(metadata.hasPrefix("http://127.0.0.1:"))
            #expect(metadata.hasSuffix("/.well-known/oauth-protected-resource/auth/write"))
            // What it names is served: the resource's metadata says which resource it is.
            let described = try await admin.send(ResourceMetadata(url: metadata))
            #expect(described.resource.hasSuffix("/auth/write") && described.scopes_supported == ["read", "write"])
            // /auth/me's challenge has no scope or metadata: those parts are empty, not guessed.
            try await admin.send(RotateToken())
            #expect(try await client.send(WhoAmI()).token == "3")
            let plain = try #require(tokens.requests.last)
            #expect(plain.reason == .rejected && plain.error == "invalid_token")
            #expect(plain.scopes.isEmpty && plain.resourceMetadata == nil)
        }
    }

    @Test("a challenge that breaks the grammar gives the provider nothing of it; only a Bearer 403 insufficient_scope steps up")
    func hostileChallenge() throws {
        func request(_ challenge: String, status: HTTPResponse.Status = .unauthorized) -> AccessTokenRequest? {
            var fields = HTTPFields()
            fields[.wwwAuthenticate] = challenge
            return AccessTokenRequest.rejection(by: HTTPResponse(status: status, headerFields: fields), stepsUp: true)
        }
        let unterminated = try #require(request(#"Bearer error="invalid_token, scope=read"#))
        #expect(unterminated.reason == .rejected && unterminated.error == nil && unterminated.scopes.isEmpty)
        // Another scheme's challenge is not a Bearer challenge; a 403 without insufficient_scope is no step-up.
        #expect(try #require(request(#"Basic realm="x", scope="admin""#)).scopes.isEmpty)
        #expect(request(#"Bearer error="invalid_token""#, status: .forbidden) == nil)
        #expect(request(#"Bearer error="insufficient_scope", scope="a b""#, status: .forbidden)?.scopes == ["a", "b"])
        #expect(request(#"Bearer error="insufficient_scope""#, status: .notFound) == nil)
    }
}
