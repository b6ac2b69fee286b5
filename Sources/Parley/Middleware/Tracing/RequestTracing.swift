#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import OpenAPIRuntime
import Tracing

/// The hand-off that gives each physical request of a `Client` call its own CLIENT span, wherever the
/// ``TracingMiddleware`` sits in the middleware list.
///
/// A client whose middlewares include a `TracingMiddleware` makes one per call and binds it as ``current`` around
/// its chain. The first `TracingMiddleware` of the chain claims it (with its tracer and settings) instead of
/// opening a span itself; under all middlewares, where the client hands each request to the transport (every
/// attempt of a retry, every hop of a redirect, a replay after a token refresh), ``send(_:body:baseURL:hop:)``
/// opens the span, injects its trace context, and ends it when the exchange is over. Each span after the first
/// carries `http.request.resend_count`, as OpenTelemetry asks.
final class RequestTracing: Sendable {
    private struct Claim: Sendable {
        let tracer: any Tracer
        let redactedQueryItems: Set<String>
    }

    private struct State: Sendable {
        var claim: Claim?
        var sends = 0
    }

    /// The hand-off of the call running in this task, if its client traces.
    @TaskLocal static var current: RequestTracing?

    private let state = LockedState(State())

    private init() {}

    /// Runs `operation` with a new hand-off bound when the call traces (its client's middlewares include a
    /// ``TracingMiddleware``); with none bound when it does not but an outer call traces, hiding the outer call's
    /// hand-off from this call's stages; otherwise as it is.
    static func bind<T>(tracing: Bool, _ operation: () async throws -> T) async rethrows -> T {
        guard tracing || current != nil else { return try await operation() }
        return try await $current.withValue(tracing ? RequestTracing() : nil) { try await operation() }
    }

    /// Takes the hand-off for `tracer`; `false` when an earlier middleware took it.
    func claim(_ tracer: any Tracer, redactedQueryItems: Set<String>) -> Bool {
        state.withLock { state in
            guard state.claim == nil else { return false }
            state.claim = Claim(tracer: tracer, redactedQueryItems: redactedQueryItems)
            return true
        }
    }

    /// How many requests went to the transport so far.
    var sends: Int { state.withLock { $0.sends } }

    /// Sends `request` through `hop` (the transport) inside a span of its own, when the hand-off was claimed.
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        hop: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let turn: (Claim, Int)? = state.withLock { state in
            defer { state.sends += 1 }
            return state.claim.map { ($0, state.sends) }
        }
        guard let (claim, resendCount) = turn else { return try await hop(request, body, baseURL) }
        var request = request
        let span = RequestSpan(
            &request,
            baseURL: baseURL,
            tracer: claim.tracer,
            redactedQueryItems: claim.redactedQueryItems,
            resendCount: resendCount,
            endpoint: CallContext.current?.endpointName
        )
        return try await InstrumentationContext.$current.withValue(span.span.context) {
            try await ObservedExchange.observe(request, body: body, baseURL: baseURL, next: hop, onEnd: span.finish)
        }
    }
}
