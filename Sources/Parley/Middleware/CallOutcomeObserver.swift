public import HTTPTypes

/// A middleware that also hears of the failures a client finds after the response has left the middleware chain:
/// a status its endpoint does not accept, a body that does not decode, a validator that rejects it.
///
/// A middleware only sees what passes through it, so these three kinds (``ParleyError/Kind/unacceptableStatus``,
/// ``ParleyError/Kind/decoding``, ``ParleyError/Kind/validation``) never reach it. The client tells every
/// middleware of either of its lists that adopts this protocol, once per failed call, after the exchange is over.
/// ``LoggingMiddleware`` and ``MetricsMiddleware`` adopt it, so that such a call is logged and counted as failed.
///
/// ```swift
/// struct FailureCounter: ClientMiddleware, CallOutcomeObserver {
///     let failures: Counter
///     func intercept(
///         _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
///         next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
///     ) async throws -> (HTTPResponse, HTTPBody?) {
///         try await next(request, body, baseURL)
///     }
///     func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) { failures.increment() }
/// }
/// ```
///
/// A middleware of the client's request list (``Client/requestMiddlewares``) also hears of a call that failed before
/// any request reached that list, through ``callFailedBeforeSending(_:request:endpoint:)``: a middleware above it
/// failed, a token could not be had, the call timed out or was cancelled first. ``TracingMiddleware`` records such a
/// call on a span of its own.
public protocol CallOutcomeObserver: Sendable {
    /// Called when the call to `endpoint` (its ``Endpoint/name``) failed with `error` after the chain; `request` is
    /// the request as the client built it, before the middlewares.
    func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String)

    /// Called, for a request middleware, when the call to `endpoint` failed with `error` before any of its requests
    /// reached the request middlewares; `request` is the request as the client built it. Default: nothing.
    func callFailedBeforeSending(_ error: ParleyError, request: HTTPRequest, endpoint: String)
}

extension CallOutcomeObserver {
    /// Nothing.
    public func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) {}

    /// Nothing.
    public func callFailedBeforeSending(_ error: ParleyError, request: HTTPRequest, endpoint: String) {}
}

extension ParleyError.Kind {
    /// Whether failures of this kind arise only above the middleware chain, after a response came back through it
    /// (what a ``CallOutcomeObserver`` hears of).
    var arisesAfterChain: Bool {
        self == .unacceptableStatus || self == .decoding || self == .validation
    }
}
