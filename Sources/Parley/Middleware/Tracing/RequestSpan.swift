import HTTPTypes
import Tracing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The CLIENT span of one physical HTTP request, named and described by OpenTelemetry's HTTP semantic
/// conventions, its trace context injected into the request's header fields by the tracer's own `inject`.
struct RequestSpan: Sendable {
    /// The span.
    let span: any Span
    /// The request and its URL, for scrubbing its secrets out of recorded errors.
    private let request: HTTPRequest
    private let url: RequestTarget
    /// What is secret: the middleware's query items, and ``SensitiveFields/current``.
    private let sensitive: SensitiveFields

    /// What OpenTelemetry puts in place of a secret in `url.full`.
    static let placeholder = "REDACTED"

    /// Starts the span of `request` (a child of the task's current trace context, if any) and injects its context
    /// into `request`'s header fields (unless `injecting` is `false`: a request that will not be sent).
    ///
    /// - Parameters:
    ///   - resendCount: how many times the request was sent before within the same call (retries, redirects),
    ///     recorded as `http.request.resend_count` when above 0.
    ///   - endpoint: the endpoint's name, recorded as `parley.endpoint`.
    init(
        _ request: inout HTTPRequest,
        baseURL: URL?,
        tracer: any Tracer,
        redactedQueryItems: Set<String>,
        resendCount: Int,
        endpoint: String?,
        injecting: Bool = true
    ) {
        let url = RequestTarget.of(request, baseURL: baseURL)
        self.url = url
        self.request = request
        let sensitive = SensitiveFields.current.union(SensitiveFields(headerFields: [], queryItems: redactedQueryItems))
        self.sensitive = sensitive
        let method = ObservationLabels.method(request.method)
        let span = tracer.startSpan(
            method == "_OTHER" ? "HTTP" : method,
            context: InstrumentationContext.current ?? .topLevel,
            ofKind: .client
        )
        self.span = span
        var attributes = SpanAttributes()
        attributes["http.request.method"] = method
        if method == "_OTHER" { attributes["http.request.method_original"] = request.method.rawValue }
        attributes["url.full"] = url.redacted(queryItems: sensitive.queryItems, placeholder: Self.placeholder)
        if !url.scheme.isEmpty { attributes["url.scheme"] = url.scheme }
        if !url.host.isEmpty { attributes["server.address"] = url.host }
        if let port = url.port { attributes["server.port"] = port }
        if resendCount > 0 { attributes["http.request.resend_count"] = resendCount }
        if let endpoint { attributes["parley.endpoint"] = endpoint }
        span.attributes.merge(attributes)
        if injecting { tracer.inject(span.context, into: &request.headerFields, using: HTTPFieldsInjector()) }
    }

    /// Records how `exchange` ended (status code; error for a 4xx or 5xx status or a failure) and ends the span.
    func finish(_ exchange: ObservedExchange) {
        var errorType: String?
        if let status = exchange.response?.status {
            span.attributes["http.response.status_code"] = status.code
            if status.code >= 400 { errorType = "\(status.code)" }
        }
        if let failure = exchange.failure {
            errorType = ObservationLabels.errorKind(failure)
            span.recordError(sensitive.redaction(of: request, url: url).scrub(failure))
        }
        if let errorType {
            span.attributes["error.type"] = errorType
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }
}
