import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// `BearerAuthMiddleware` against the demo server's `/auth/*` routes; the provider uses the server's token endpoint.
@Suite("Bearer auth", .timeLimit(.minutes(1)))
struct AuthTests {
    @Test(
        "100 concurrent requests with a revoked token: one refresh, one replay each, all succeed",
        arguments: TransportKind.allCases
    )
    func singleFlight(transport: TransportKind) async throws {
        let barrier = ArrivalBarrier()
        try await withBearerClient(transport, inner: [barrier]) { client, admin, tokens in
            #expect(try await client.send(WhoAmI()).token == "1")
            try await admin.send(RotateToken())
            // All 100 leave with token 1 (the barrier holds them under the middleware until the last one is there).
            barrier.arm(100)
            let seen = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { try await client.send(WhoAmI()).token } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(seen == Array(repeating: "2", count: 100))
            #expect(tokens.calls == 2)
            #expect(tokens.staleTokens.last??.value.hasPrefix("demo-token-1-") == true)
            let stats = try await admin.send(GetAuthStats())
            #expect(stats == AuthStats(issued: 2, rotations: 1, accepted: 101, rejected: 100))
        }
    }

    @Test("a token expiring within the leeway is refreshed before it is sent", arguments: TransportKind.allCases)
    func proactive(transport: TransportKind) async throws {
        try await withBearerClient(transport) { client, admin, tokens in
            tokens.setExpiries([10, nil])  // token 1 expires in 10 s, inside the 30 s leeway
            #expect(try await client.send(WhoAmI()).token == "1")
            #expect(try await client.send(WhoAmI()).token == "2")
            #expect(try await client.send(WhoAmI()).token == "2")
            #expect(tokens.calls == 2)
            #expect(tokens.staleTokens.map { $0?.value.prefix(13) } == [nil, "demo-token-1-"])
            let stats = try await admin.send(GetAuthStats())
            #expect(stats == AuthStats(issued: 2, rotations: 0, accepted: 3, rejected: 0))
        }
        try await withBearerClient(.asyncHTTPClient, leeway: .zero) { client, _, tokens in
            tokens.setExpiries([10])  // with no leeway, 10 s left is enough
            let seen = [try await client.send(WhoAmI()).token, try await client.send(WhoAmI()).token]
            #expect(seen == ["1", "1"])
            #expect(tokens.calls == 1)
        }
    }

    @Test(
        "a failed refresh fails every waiting request with .authentication, once per wave, no loop",
        arguments: TransportKind.allCases
    )
    func failedRefresh(transport: TransportKind) async throws {
        let barrier = ArrivalBarrier()
        try await withBearerClient(transport, inner: [barrier]) { client, admin, tokens in
            #expect(try await client.send(WhoAmI()).token == "1")
            try await admin.send(RotateToken())
            tokens.setFailing(true)
            try await expectWaveFails(client, barrier: barrier, size: 20)
            #expect(tokens.calls == 2)
            // A new request asks the provider again (the token is known bad): one call, no request sent.
            let again = await expectParleyError(.authentication) { try await client.send(WhoAmI()) }
            #expect(again?.message.contains("failed to refresh a token") == true)
            #expect(tokens.calls == 3)
            tokens.setFailing(false)
            #expect(try await client.send(WhoAmI()).token == "2")
            #expect(tokens.calls == 4)
            // A second wave after the next revocation: again exactly one call.
            try await admin.send(RotateToken())
            tokens.setFailing(true)
            try await expectWaveFails(client, barrier: barrier, size: 20)
            #expect(tokens.calls == 5)
            let stats = try await admin.send(GetAuthStats())
            #expect(stats == AuthStats(issued: 2, rotations: 2, accepted: 2, rejected: 40))
        }
    }

    /// Sends `size` requests at once, all leaving with the current (revoked) token; each must fail with
    /// `.authentication` after its 401, without showing any token.
    private func expectWaveFails(_ client: Client, barrier: ArrivalBarrier, size: Int) async throws {
        barrier.arm(size)
        let errors = await withTaskGroup(of: ParleyError?.self) { group in
            for _ in 0..<size {
                group.addTask { await expectParleyError(.authentication) { try await client.send(WhoAmI()) } }
            }
            return await group.reduce(into: [ParleyError?]()) { $0.append($1) }
        }
        for error in errors {
            let error = try #require(error)
            #expect(error.status == .unauthorized)
            #expect(error.message.contains("The access token provider failed to refresh a token"))
            #expect(error.description.contains("the token endpoint refused to refresh \(Redaction.placeholder)"))
            #expect(!error.description.contains("demo-token-"), "\(error)")
        }
    }

    @Test("a request rejected again after its replay returns that 401: one refresh, no loop", arguments: TransportKind.allCases)
    func replayOnce(transport: TransportKind) async throws {
        try await withDemoClient(transport) { admin, server in
            let calls = LockedState(0)
            let client = Client(
                baseURL: try #require(URL(string: server.baseURL)),
                transport: transport.makeTransport(),
                middlewares: [
                    .bearerAuth { _ in
                        let call = calls.withLock { calls in
                            calls += 1
                            return calls
                        }
                        return AccessToken("never-valid-\(call)")
                    }
                ]
            )
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(WhoAmI()) }
            try await client.shutdown()
            #expect(error?.status == .unauthorized)
            #expect(error?.response?.headerFields[.wwwAuthenticate] == "Bearer error=\"invalid_token\"")
            #expect(calls.withLock { $0 } == 2)
            #expect(try await admin.send(GetAuthStats()).rejected == 2)
        }
    }

    @Test("a body that cannot be sent again is not replayed: the 401 comes back", arguments: TransportKind.allCases)
    func nonReplayableBody(transport: TransportKind) async throws {
        try await withBearerClient(transport) { client, admin, tokens in
            #expect(try await client.send(WhoAmI()).token == "1")
            try await admin.send(RotateToken())
            let once = HTTPBody([UInt8]("once".utf8), length: .known(4), iterationBehavior: .single)
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.send(WhoAmI(method: .post, body: .stream(once, contentType: "text/plain")))
            }
            #expect(error?.status == .unauthorized)
            #expect(tokens.calls == 1)
            // A replayable body is replayed after the refresh.
            #expect(try await client.send(WhoAmI(method: .post, body: .text("again"))).token == "2")
            #expect(tokens.calls == 2)
            #expect(try await admin.send(GetAuthStats()) == AuthStats(issued: 2, rotations: 1, accepted: 2, rejected: 2))
        }
    }

    @Test(
        "a request waiting for a refresh can be cancelled; the refresh goes on for the others",
        arguments: TransportKind.allCases
    )
    func cancelWaiter(transport: TransportKind) async throws {
        try await withBearerClient(transport) { client, _, tokens in
            let gate = Gate()
            tokens.setGate(gate)
            var entered = tokens.entered.makeAsyncIterator()
            let first = Task { try await client.send(WhoAmI()) }
            #expect(await entered.next() == 1)  // the refresh for `first` is in flight, held by the gate
            let second = Task { try await client.send(WhoAmI()) }
            first.cancel()
            let error = await expectParleyError(.cancelled) { try await first.value }
            #expect(error?.message.contains("waiting for an access token") == true)
            gate.open()
            let answer = try await second.value
            #expect(answer.token == "1")
            #expect(tokens.calls == 1)
        }
    }

    @Test("errors from downstream do not show the token", arguments: TransportKind.allCases)
    func downstreamRedaction(transport: TransportKind) async throws {
        try await withBearerClient(transport, inner: [LeakAuthorization()]) { client, _, _ in
            let error = await expectParleyError(.middleware) { try await client.send(WhoAmI()) }
            let description = try #require(error?.description)
            #expect(description.contains("Bearer \(Redaction.placeholder)"), "\(description)")
            #expect(!description.contains("demo-token-"), "\(description)")
            #expect(error?.underlying is RedactedError)
        }
    }
}

/// Fails every request with an error that shows its `Authorization` header.
struct LeakAuthorization: ClientMiddleware {
    struct Leak: Error, CustomStringConvertible {
        let description: String
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        throw Leak(description: "refused Authorization: \(request.headerFields[.authorization] ?? "none")")
    }
}
