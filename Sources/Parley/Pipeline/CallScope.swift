import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything Parley's stages read of the call in progress, in one task-local value: the call's context (the public
/// ``CallContext/current`` is a view of it), its response head limit, its request counter, what it treats as secret,
/// the record of what it sent, the limits of a response read whole, the credentials the auth middlewares added (the
/// public ``OriginBoundCredentials/current`` is a view of it) and the decompression limits for a transport that
/// inflates itself (``ResponseDecompression/forTransport``).
///
/// ``Pipeline`` binds it once per call around stages 5 to 9 (one task-local, not one per concern); a middleware
/// that changes a part for what runs below it (``RetryMiddleware``'s attempt, an auth middleware's credentials)
/// binds a changed copy with ``with(_:_:)``. Outside a `Client` (a middleware in an OpenAPI-generated client) there
/// is none until such a middleware binds one; every view then reads the defaults.
package struct CallScope: Sendable {
    /// The parts, boxed (``Boxed``): a scope is one reference wide, so that the async frames that hold one (every
    /// stage of every call) and its task-local binding stay small. A scope is made once per call; a change (a retry's
    /// attempt, a redirect's target, an auth middleware's credentials) makes a new box.
    private struct Parts: Sendable {
        var context: CallContext?
        var headTimeout: Duration?
        var requests: RequestCounter?
        var sensitiveFields: SensitiveFields = .default
        var sent: SentRequest?
        var whole: WholeResponseLimits?
        var credentials = OriginBoundCredentials()
        var decompression: ResponseDecompression? = ResponseDecompression()
        var target: RequestTarget?
    }

    private var parts: Boxed<Parts>

    /// The parts of a scope outside a `Client`: the defaults, one box for all.
    private static let defaults = Boxed(Parts())

    /// The defaults: the scope of a middleware outside a `Client`.
    init() {
        parts = Self.defaults
    }

    init(
        context: CallContext?,
        headTimeout: Duration?,
        requests: RequestCounter?,
        sensitiveFields: SensitiveFields,
        sent: SentRequest?,
        whole: WholeResponseLimits?,
        decompression: ResponseDecompression?,
        target: RequestTarget?
    ) {
        parts = Boxed(
            Parts(
                context: context,
                headTimeout: headTimeout,
                requests: requests,
                sensitiveFields: sensitiveFields,
                sent: sent,
                whole: whole,
                decompression: decompression,
                target: target
            )
        )
    }

    /// The endpoint's name, whether the call may be sent again, the attempt; `nil` outside a `Client` until a
    /// ``RetryMiddleware`` counts attempts.
    package var context: CallContext? {
        get { parts.context }
        set { parts.context = newValue }
    }
    /// The limit on each response head (``HeadDeadline``): the endpoint's timeout, else the client's head timeout.
    package var headTimeout: Duration? {
        get { parts.headTimeout }
        set { parts.headTimeout = newValue }
    }
    /// How many requests have reached the request middlewares (stage 8); `nil` when the client has none.
    var requests: RequestCounter? {
        get { parts.requests }
        set { parts.requests = newValue }
    }
    /// What the client treats as secret (``SensitiveFields/current``).
    var sensitiveFields: SensitiveFields {
        get { parts.sensitiveFields }
        set { parts.sensitiveFields = newValue }
    }
    /// The last request handed to the transport, for ``ParleyError/curlCommand``.
    var sent: SentRequest? {
        get { parts.sent }
        set { parts.sent = newValue }
    }
    /// The limits of a response read whole, when the call reads it whole anyway (its decoder or validators do): a
    /// ``PipelineTransport`` may then read it whole where its bytes arrive.
    package var whole: WholeResponseLimits? {
        get { parts.whole }
        set { parts.whole = newValue }
    }
    /// The credentials the auth middlewares above added (``OriginBoundCredentials/current``).
    var credentials: OriginBoundCredentials {
        get { parts.credentials }
        set { parts.credentials = newValue }
    }
    /// The client's decompression limits, `nil` when decompression is off (``ResponseDecompression/forTransport``).
    var decompression: ResponseDecompression? {
        get { parts.decompression }
        set { parts.decompression = newValue }
    }
    /// The URL of the request in progress, taken apart: made in stage 1, then by ``RedirectState`` for each hop
    /// (``RequestTarget/of(_:baseURL:)``).
    var target: RequestTarget? {
        get { parts.target }
        set { parts.target = newValue }
    }

    /// The endpoint's name, handed to middlewares and the transport as `operationID`.
    package var operationID: String { context?.endpointName ?? "" }

    @TaskLocal static var current: CallScope?

    /// Runs `operation` with the current scope (outside a `Client`, the defaults) changed by `change`.
    static func with<T>(_ change: (inout CallScope) -> Void, _ operation: () async throws -> T) async rethrows -> T {
        var scope = current ?? CallScope()
        change(&scope)
        return try await $current.withValue(scope, operation: operation)
    }
}

/// The last request of a call handed to the transport (stage 9, after every middleware), with the credentials the
/// middlewares marked (``OriginBoundCredentials``): what ``ParleyError/curlCommand`` shows.
final class SentRequest: Sendable {
    struct Record: Sendable {
        let request: HTTPRequest
        let baseURL: URL?
        var credentials = OriginBoundCredentials()
    }

    private let state = LockedState<Record?>(nil)

    var last: Record? { state.withLock { $0 } }

    func record(_ request: HTTPRequest, baseURL: URL, credentials: OriginBoundCredentials) {
        let record = Record(request: request, baseURL: baseURL, credentials: credentials)
        state.withLock { $0 = record }
    }
}

/// The requests of one call that have reached stage 8: every attempt, every redirect hop.
final class RequestCounter: Sendable {
    private let state = LockedState(0)

    /// The requests counted so far.
    var count: Int { state.withLock { $0 } }

    /// Counts one more request.
    func increment() { state.withLock { $0 += 1 } }
}
