public import HTTPTypes

/// What Parley knows about the call in progress, for middlewares to read: the endpoint's name, whether it may
/// be sent again, and which attempt this is.
///
/// `Client` sets it (in the call's one task-local scope) around its middleware chain; the ``RetryMiddleware`` sets
/// ``attempt`` for everything downstream of it (``binding(_:_:)``), so a logging or metrics middleware installed after it
/// sees every attempt with its number. Outside a `Client` (a middleware installed in an OpenAPI-generated
/// client) ``current`` is `nil`, and Parley's middlewares fall back to the request's method.
///
/// ```swift
/// struct LogAttempts: ClientMiddleware {
///     func intercept(
///         _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
///         next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
///     ) async throws -> (HTTPResponse, HTTPBody?) {
///         let attempt = CallContext.current?.attempt ?? 1
///         print("\(operationID): attempt \(attempt)")
///         return try await next(request, body, baseURL)
///     }
/// }
/// ```
public struct CallContext: Sendable {
    /// The endpoint's ``Endpoint/name``.
    public var endpointName: String
    /// Whether the request may be sent more than once with the same effect (``Endpoint/isIdempotent``).
    public var isIdempotent: Bool
    /// The attempt number, from 1. ``RetryMiddleware`` counts up for each attempt it makes.
    public var attempt: Int

    /// A context.
    public init(endpointName: String, isIdempotent: Bool, attempt: Int = 1) {
        self.endpointName = endpointName
        self.isIdempotent = isIdempotent
        self.attempt = attempt
    }

    /// The context of the call running in this task, if it runs in a `Client` (or below a ``RetryMiddleware``).
    ///
    /// A view of the call's one task-local scope, which Parley binds once per call.
    public static var current: CallContext? { CallScope.current?.context }

    /// Runs `operation` (the rest of the chain) with `context` as ``current``: a middleware of your own that makes
    /// attempts, as ``RetryMiddleware`` does, numbers them for the middlewares below it.
    public static func binding<T>(_ context: CallContext, _ operation: () async throws -> T) async rethrows -> T {
        try await CallScope.with({ $0.context = context }, operation)
    }

    /// Whether RFC 9110 defines `method` as idempotent: GET, HEAD, PUT, DELETE, OPTIONS, TRACE (the default of
    /// ``Endpoint/isIdempotent``, and what Parley's middlewares assume outside a `Client`).
    ///
    /// A static function of Parley's rather than an extension of swift-http-types' `HTTPRequest.Method`, whose own
    /// future members it could collide with.
    public static func isIdempotent(_ method: HTTPRequest.Method) -> Bool {
        switch method {
        case .get, .head, .put, .delete, .options, .trace: true
        default: false
        }
    }
}
