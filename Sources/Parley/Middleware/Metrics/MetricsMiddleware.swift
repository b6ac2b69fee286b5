public import HTTPTypes
public import Metrics
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Records each request in swift-metrics: counts, errors by kind, latency, requests in flight, bytes.
///
/// ```swift
/// let client = Client(baseURL: url, middlewares: [.metrics()])                   // the global MetricsSystem
/// let measured = Client(baseURL: url, middlewares: [.metrics(factory: backend, prefix: "shop.")])
/// ```
///
/// | name (after ``prefix``) | type | dimensions | what |
/// |---|---|---|---|
/// | `http.client.requests` | Counter | method, endpoint, status_class | exchanges over |
/// | `http.client.errors` | Counter | method, endpoint, kind | exchanges that failed |
/// | `http.client.request.duration` | Timer (nanoseconds) | method, endpoint, status_class | time to the end of the body |
/// | `http.client.active_requests` | Meter | method, endpoint | exchanges in flight |
/// | `http.client.request.body.bytes` | Counter | method, endpoint | bytes of request bodies sent |
/// | `http.client.response.body.bytes` | Counter | method, endpoint | bytes of response bodies read |
/// | `http.client.cache` | Counter | method, endpoint, outcome | what ``HTTPCache`` did: `hit`, `miss`, `revalidated`, `stale` |
///
/// Dimension values: `method` is `GET`, `POST`, … (`_OTHER` for others); `endpoint` is the
/// ``Endpoint/name`` (``CallContext/endpointName``; the OpenAPI operation ID outside a `Client`), never the
/// path, so cardinality stays bounded and no id or secret in a path reaches a label; `status_class` is `2xx`,
/// `3xx`, `4xx`, `5xx` (`1xx`), or `error` when no response arrived; `kind` is the ``ParleyError/Kind`` label
/// (`transport`, `timeout`, `redirect`, `bodyTooLarge`, …).
///
/// **What a middleware can measure.** An exchange is over when the response body has been read to its end,
/// failed, or been released unread; that is when it is counted and timed (a streamed body stays in flight while
/// it streams). Errors are those thrown downstream of the middleware (connection, timeout, redirect policy,
/// middlewares after this one) and those thrown while the body is read (cut off, too large). A 4xx or 5xx
/// answer is not an error here: it is a response, counted in `http.client.requests` with its `status_class`.
/// Status validation, decoding and validators run above the middlewares, after the response has left them: a
/// `Client` reports those failures back, so ``ParleyError/Kind/unacceptableStatus``,
/// ``ParleyError/Kind/decoding`` and ``ParleyError/Kind/validation`` are counted in `http.client.errors` too (with
/// `method` and `endpoint`; outside a `Client`, in an OpenAPI-generated client, they are not seen). A 404 that the
/// endpoint rejects is thus one request with `status_class` `4xx` and one error of kind `unacceptableStatus`. A
/// call cancelled by the client's overall timeout is counted as `cancelled`: the timeout is decided above the
/// chain, after the exchange was cancelled.
///
/// **Placement.** Before `.retry()` it measures calls; after it, attempts.
public struct MetricsMiddleware: ClientMiddleware {
    /// The backend; `nil` for `MetricsSystem.factory` at the time of each request.
    public let factory: (any MetricsFactory)?
    /// Prepended to every metric name.
    public let prefix: String

    /// A metrics middleware recording into `factory` (by default the bootstrapped `MetricsSystem`), its metric
    /// names prefixed with `prefix`.
    public init(factory: (any MetricsFactory)? = nil, prefix: String = "") {
        self.factory = factory
        self.prefix = prefix
    }

    /// Measures the exchange.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let factory = self.factory ?? MetricsSystem.factory
        let prefix = self.prefix
        let call = [
            ("method", ObservationLabels.method(request.method)),
            ("endpoint", CallContext.current?.endpointName ?? operationID),
        ]
        let active = Meter(label: prefix + "http.client.active_requests", dimensions: call, factory: factory)
        active.increment()
        return try await ObservedExchange.observe(request, body: body, baseURL: baseURL, next: next) { exchange in
            active.decrement()
            let outcome = call + [("status_class", ObservationLabels.statusClass(exchange.response?.status))]
            Counter(label: prefix + "http.client.requests", dimensions: outcome, factory: factory).increment()
            CoreMetrics.Timer(label: prefix + "http.client.request.duration", dimensions: outcome, factory: factory)
                .record(duration: exchange.duration)
            Counter(label: prefix + "http.client.request.body.bytes", dimensions: call, factory: factory)
                .increment(by: exchange.sent.bytes)
            Counter(label: prefix + "http.client.response.body.bytes", dimensions: call, factory: factory)
                .increment(by: exchange.received.bytes)
            if let cache = exchange.response.flatMap(HTTPCache.outcome(of:)) {
                Counter(label: prefix + "http.client.cache", dimensions: call + [("outcome", cache.rawValue)], factory: factory)
                    .increment()
            }
            if let failure = exchange.failure {
                let kind = call + [("kind", ObservationLabels.errorKind(failure))]
                Counter(label: prefix + "http.client.errors", dimensions: kind, factory: factory).increment()
            }
        }
    }
}

extension MetricsMiddleware: CallOutcomeObserver {
    /// Counts a failure found after the chain (status, decoding, validation) in `http.client.errors`.
    public func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) {
        let dimensions = [
            ("method", ObservationLabels.method(request.method)),
            ("endpoint", endpoint),
            ("kind", error.kind.label),
        ]
        Counter(label: prefix + "http.client.errors", dimensions: dimensions, factory: factory ?? MetricsSystem.factory)
            .increment()
    }
}

extension ClientMiddleware where Self == MetricsMiddleware {
    /// A ``MetricsMiddleware``: `.metrics()`, `.metrics(factory: backend, prefix: "shop.")`.
    public static func metrics(factory: (any MetricsFactory)? = nil, prefix: String = "") -> MetricsMiddleware {
        MetricsMiddleware(factory: factory, prefix: prefix)
    }
}
