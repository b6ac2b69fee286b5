import Foundation
import InMemoryTracing
import Parley
import Testing
import Tracing

@testable import ParleyTestSupport

/// Where `.tracing()` sits relative to `.retry()`: before or after it among the call's middlewares, or among the
/// request middlewares, where the client moves it from the others.
enum TracingPlacement: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case beforeRetry
    case afterRetry
    case requestMiddlewares

    var testDescription: String { rawValue }

    func middlewares(_ tracer: any Tracer) -> [any ClientMiddleware] {
        let fast = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(2), maxBackoff: .milliseconds(10))
        switch self {
        case .beforeRetry: return [.tracing(tracer: tracer), .retry(fast)]
        case .afterRetry: return [.retry(fast), .tracing(tracer: tracer)]
        case .requestMiddlewares: return [.retry(fast)]
        }
    }

    func requestMiddlewares(_ tracer: any Tracer) -> [any ClientMiddleware] {
        self == .requestMiddlewares ? [.tracing(tracer: tracer)] : []
    }
}

@Suite("Tracing middleware: a span per request sent", .timeLimit(.minutes(1)))
struct TracingAttemptTests {
    @Test(
        "A retried call: one CLIENT span per attempt, siblings under the caller's span, with resend counts, each injected",
        arguments: TransportKind.allCases,
        TracingPlacement.allCases
    )
    func retried(transport: TransportKind, placement: TracingPlacement) async throws {
        let tracer = InMemoryTracer()
        try await withDemoClient(
            transport,
            middlewares: placement.middlewares(tracer),
            requestMiddlewares: placement.requestMiddlewares(tracer)
        ) { client, _ in
            let answer = try await tracer.withSpan("order") { _ in try await client.send(Flaky(failures: 2)) }
            #expect(answer.attempts == 3)
            let parent = try #require(tracer.finishedSpans.first { $0.operationName == "order" })
            let attempts = tracer.finishedSpans.filter { $0.kind == .client }
            #expect(attempts.count == 3)
            #expect(attempts.map(\.operationName) == ["GET", "GET", "GET"])
            #expect(attempts.map { $0.attribute("http.request.resend_count") } == [nil, "1", "2"])
            #expect(attempts.map { $0.attribute("http.response.status_code") } == ["503", "503", "200"])
            #expect(attempts.map { $0.status?.code } == [.error, .error, nil])
            #expect(attempts.allSatisfy { $0.parentSpanID == parent.spanID && $0.traceID == parent.traceID })
            #expect(Set(attempts.map(\.spanID)).count == 3)
            // Each attempt carried its own span's context to the server.
            let injected = tracer.performedContextInjections.compactMap { $0.values[InMemoryTracer.spanIDKey] }
            #expect(injected == attempts.map(\.spanID))
        }
    }

    @Test(
        "Each redirect hop is a request of its own: the server at the end receives the last hop's context",
        arguments: TransportKind.allCases
    )
    func redirected(transport: TransportKind) async throws {
        let tracer = W3CInMemoryTracer()
        try await withDemoClient(transport, middlewares: [.tracing(tracer: tracer)]) { client, server in
            let echo = try await client.send(Get<Echo>(path: "/redirect/chain/2"))
            #expect(echo.path == "/echo")
            let hops = tracer.finishedSpans
            #expect(hops.map { $0.attribute("http.response.status_code") } == ["302", "302", "200"])
            #expect(hops.map { $0.attribute("http.request.resend_count") } == [nil, "1", "2"])
            #expect(hops.last?.attribute("url.full") == "\(server.baseURL)/echo")
            let last = try #require(hops.last)
            #expect(echo.header("traceparent") == ["00-\(last.traceID)-\(last.spanID)-01"])
            #expect(hops.map { $0.status?.code } == [nil, nil, nil], "3xx is not an error")
        }
    }

    @Test("An attempt that fails to connect is recorded on its own span", arguments: TracingPlacement.allCases)
    func refusedAttempts(placement: TracingPlacement) async throws {
        let tracer = InMemoryTracer()
        try await withRefusingClient(
            .asyncHTTPClient,
            middlewares: placement.middlewares(tracer),
            requestMiddlewares: placement.requestMiddlewares(tracer)
        ) { client in
            await expectParleyError(.transport) { try await client.send(EchoEndpoint()) }
            let attempts = tracer.finishedSpans
            #expect(attempts.count == 3)
            #expect(attempts.allSatisfy { $0.attribute("error.type") == "transport" && $0.errors.count == 1 })
            #expect(attempts.map { $0.attribute("http.request.resend_count") } == [nil, "1", "2"])
        }
    }
}
