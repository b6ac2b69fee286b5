public import HTTPTypes
public import OpenAPIRuntime
public import Tracing

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Traces each HTTP request with swift-distributed-tracing: a CLIENT span per physical request, described with
/// OpenTelemetry's HTTP semantic conventions, its trace context (W3C `traceparent` with an OpenTelemetry tracer)
/// injected into the request's header fields through the tracer's own `inject`.
///
/// ```swift
/// let client = Client(baseURL: url, middlewares: [.tracing(), .retry()])   // InstrumentationSystem.tracer
/// ```
///
/// **Spans.** Named after the method (`GET`; `HTTP` for a method outside the standard ones), of kind `.client`,
/// children of the task's current span if any. Attributes: `http.request.method` (and
/// `http.request.method_original`), `url.full` (user info and the values of ``redactedQueryItems`` and of the query
/// items of ``SensitiveFields/current`` replaced by `REDACTED`), `url.scheme`, `server.address`, `server.port`, `http.response.status_code`,
/// `http.request.resend_count` (from the second request of a call on), `parley.endpoint` (the
/// ``Endpoint/name``), and `error.type` on failure: the status code for a 4xx or 5xx answer, the
/// ``ParleyError/Kind`` label for an error (recorded with `recordError`, the request's sensitive header values and
/// query items scrubbed: ``SensitiveFields``). Both set the span's
/// status to `.error`, as the conventions ask of clients. A span ends when the exchange is over: when the
/// response body has been read to its end, failed, or been released unread (an error mid-body is recorded).
///
/// **One span per request sent, wherever the middleware is listed.** OpenTelemetry wants a span for each request
/// sent, each resend (retry, redirect, replay after a token refresh) with `http.request.resend_count`. Tracing is
/// therefore a request middleware (``Client/requestMiddlewares``): it sees every request the client hands to the
/// transport. Listed among a client's call middlewares instead, it is moved there, ahead of the other request
/// middlewares, so `.tracing()` placed before `.retry()`, after it, or in either list gives the same spans: one per
/// request on the wire, siblings under the caller's span, each injecting its own trace context. A call that fails
/// before any request is sent (a middleware failed, a token could not be had) gets one span recording the error
/// (``callFailedBeforeSending(_:request:endpoint:)``). A second `TracingMiddleware` in the same client is dropped.
///
/// Outside a `Client` (installed in an OpenAPI-generated client), the middleware opens the span around the rest
/// of the chain itself; place it after any retry middleware there to get a span per attempt.
///
/// With the no-op tracer (nothing bootstrapped), requests pass through untouched. If the transport traces too
/// (an `HTTPClient` configured with a tracer), turn one of them off, or each request is traced twice.
public struct TracingMiddleware: ClientMiddleware, CallOutcomeObserver {
    /// The tracer; `nil` for `InstrumentationSystem.tracer` at the time of each call.
    public let tracer: (any Tracer)?
    /// Query items whose values are replaced by `REDACTED` in `url.full`, lowercased.
    public let redactedQueryItems: Set<String>

    /// A tracing middleware with `tracer` (by default the bootstrapped one), redacting the values of
    /// `redactedQueryItems` in recorded URLs.
    public init(
        tracer: (any Tracer)? = nil,
        redactedQueryItems: Set<String> = LoggingMiddleware.defaultRedactedQueryItems
    ) {
        self.tracer = tracer
        self.redactedQueryItems = Set(redactedQueryItems.map { $0.lowercased() })
    }

    /// Traces the request in a CLIENT span of its own. In a `Client`, its resend count is the number of requests of
    /// the call sent before it; outside one, the retry attempt's (``CallContext/attempt``).
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        if tracer is NoOpTracer { return try await next(request, body, baseURL) }
        let sentBefore = CallScope.current?.requests.map { $0.count - 1 } ?? (CallContext.current?.attempt ?? 1) - 1
        var request = request
        let span = RequestSpan(
            &request,
            baseURL: baseURL,
            tracer: tracer,
            redactedQueryItems: redactedQueryItems,
            resendCount: sentBefore,
            endpoint: CallContext.current?.endpointName ?? operationID
        )
        return try await InstrumentationContext.$current.withValue(span.span.context) {
            try await ObservedExchange.observe(request, body: body, baseURL: baseURL, next: next, onEnd: span.finish)
        }
    }

    /// Records a call that failed before any of its requests was sent on one span, nothing injected.
    public func callFailedBeforeSending(_ error: ParleyError, request: HTTPRequest, endpoint: String) {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        if tracer is NoOpTracer { return }
        var unsent = request
        RequestSpan(
            &unsent,
            baseURL: nil,
            tracer: tracer,
            redactedQueryItems: redactedQueryItems,
            resendCount: 0,
            endpoint: endpoint,
            injecting: false
        )
        .finish(ObservedExchange(failure: error, duration: .zero, sent: BodyObserver.Totals()))
    }
}

extension ClientMiddleware where Self == TracingMiddleware {
    /// A ``TracingMiddleware``: `.tracing()` (the bootstrapped tracer), `.tracing(tracer: myTracer)`.
    public static func tracing(
        tracer: (any Tracer)? = nil,
        redactedQueryItems: Set<String> = LoggingMiddleware.defaultRedactedQueryItems
    ) -> TracingMiddleware {
        TracingMiddleware(tracer: tracer, redactedQueryItems: redactedQueryItems)
    }
}
