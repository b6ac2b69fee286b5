public import HTTPTypes

/// The header fields and query items that Parley's auth middlewares added to the request in progress: credentials
/// for its origin only. The redirect follower (under every middleware) removes them from a hop to another origin,
/// whatever ``RedirectPolicy/credentialHeaderFields`` and ``RedirectPolicy/credentialQueryItems`` say.
///
/// ``APIKeyMiddleware``, ``BasicAuthMiddleware`` and ``BearerAuthMiddleware`` set it (in the call's task-local scope) around
/// the rest of the chain. A middleware of your own that adds a credential can do the same with ``binding(header:_:)``
/// or ``binding(queryItem:_:)``, or name it in the client's ``RedirectPolicy``.
public struct OriginBoundCredentials: Sendable, Hashable {
    /// Header fields that must not follow a redirect to another origin.
    public var headerFields: Set<HTTPField.Name> = []
    /// Names of query items that must not follow a redirect to another origin.
    public var queryItems: Set<String> = []

    /// None.
    public init() {}

    /// The credentials added by the middlewares above the code running now (empty outside a `Client`): a view of the
    /// call's one task-local scope.
    public static var current: OriginBoundCredentials { CallScope.current?.credentials ?? OriginBoundCredentials() }

    /// Runs `operation` (the rest of the chain) with `header` marked as a credential of the request's origin.
    public static func binding<T>(header: HTTPField.Name, _ operation: () async throws -> T) async rethrows -> T {
        guard !current.headerFields.contains(header) else { return try await operation() }
        return try await CallScope.with({ _ = $0.credentials.headerFields.insert(header) }, operation)
    }

    /// Runs `operation` (the rest of the chain) with the query item `name` marked as a credential of the request's
    /// origin.
    public static func binding<T>(queryItem name: String, _ operation: () async throws -> T) async rethrows -> T {
        guard !current.queryItems.contains(name) else { return try await operation() }
        return try await CallScope.with({ _ = $0.credentials.queryItems.insert(name) }, operation)
    }
}
