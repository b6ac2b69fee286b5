import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Faults that the resilience layer handles: a 503 storm (retry middleware) and redirect loops (redirect policy).
@Suite("Fault injection: retries and redirects", .timeLimit(.minutes(1)))
struct FaultResilienceTests {
    /// Retries at once (the server's `Retry-After: 0` wins over the backoff anyway).
    private static let quickRetries = RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(5))

    @Test("a 503 storm with Retry-After: 0 is retried until it passes", arguments: TransportKind.allCases)
    func stormPasses(_ kind: TransportKind) async throws {
        let log = RetryLog()
        let retry = RetryMiddleware.retry(Self.quickRetries, onRetry: log.record)
        try await withFaultClient(kind, middlewares: [retry]) { client, server in
            let key = UUID().uuidString
            let answer = try await client.send(
                FaultCall<StormAnswer>(path: "/storm", query: ["key": key, "failures": "3", "retry-after": "0"])
            )
            #expect(answer == StormAnswer(key: key, attempts: 4))
            #expect(server.stormRequests(key: key) == 4)
            #expect(server.acceptedConnections == 4)
            #expect(log.all.map(\.status) == [503, 503, 503])
            #expect(log.all.allSatisfy { $0.delayFromRetryAfter && $0.delay == .zero })
        }
    }

    @Test("a Retry-After of one second is waited for", arguments: TransportKind.allCases)
    func stormRetryAfterHonoured(_ kind: TransportKind) async throws {
        let log = RetryLog()
        let retry = RetryMiddleware.retry(Self.quickRetries, onRetry: log.record)
        try await withFaultClient(kind, middlewares: [retry]) { client, server in
            let key = UUID().uuidString
            let started = ContinuousClock.now
            let answer = try await client.send(
                FaultCall<StormAnswer>(path: "/storm", query: ["key": key, "failures": "1", "retry-after": "1"])
            )
            #expect(answer.attempts == 2)
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(log.all.map(\.delay) == [.seconds(1)])
            #expect(log.all.first?.delayFromRetryAfter == true)
        }
    }

    @Test("a storm longer than the attempts fails with .unacceptableStatus 503", arguments: TransportKind.allCases)
    func stormOutlastsRetries(_ kind: TransportKind) async throws {
        let retry = RetryMiddleware.retry(Self.quickRetries)
        try await withFaultClient(kind, middlewares: [retry]) { client, server in
            let key = UUID().uuidString
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.send(
                    FaultCall<StormAnswer>(path: "/storm", query: ["key": key, "failures": "100", "retry-after": "0"])
                )
            }
            #expect(error?.status?.code == 503)
            #expect(server.stormRequests(key: key) == 4)
        }
    }

    @Test("a redirect to itself fails with .redirect", arguments: TransportKind.allCases)
    func redirectLoop(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, server in
            let error = await expectParleyError(.redirect) { try await client.send(FaultCall<Data>(path: "/redirect-loop")) }
            #expect(error?.status?.code == 302)
            // Stopped at the loop, not by the hop limit (5 by default).
            #expect(server.acceptedConnections < 6)
        }
    }

    @Test("a loop a → b → a fails with .redirect", arguments: TransportKind.allCases)
    func redirectLoopThroughTwo(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, server in
            await expectParleyError(.redirect) {
                try await client.send(FaultCall<Data>(path: "/redirect-loop", query: ["via": "b"]))
            }
            #expect(server.acceptedConnections < 6)
        }
    }
}
