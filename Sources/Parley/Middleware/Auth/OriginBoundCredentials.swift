public import HTTPTypes

/// The header fields and query items that Parley's auth middlewares added to the request in progress: credentials
/// for its origin only. The redirect follower (under every middleware) removes them from a hop to another origin,
/// whatever ``RedirectPolicy/credentialHeaderFields`` and ``RedirectPolicy/credentialQueryItems`` say.
///
/// ``APIKeyMiddleware``, ``BasicAuthMiddleware`` and ``BearerAuthMiddleware`` set it (as a task-local value) around
/// the rest of the chain. A middleware of your own that adds a credential can do the same with ``binding(header:_:)``
/// or ``binding(queryItem:_:)``, or name it in the client's ``RedirectPolicy``.
public struct OriginBoundCredentials: Sendable, Hashable {
    /// Header fields that must not follow a redirect to another origin.
    public var headerFields: Set<HTTPField.Name> = []
    /// Names of query items that must not follow a redirect to another origin.
    public var queryItems: Set<String> = []

    /// None.
    public init() {}

    /// The credentials added by the middlewares above the code running now (empty outside a `Client`).
    @TaskLocal public static var current = OriginBoundCredentials()

    /// Runs `operation` (the rest of the chain) with `header` marked as a credential of the request's origin.
    public static func binding<T>(header: HTTPField.Name, _ operation: () async throws -> T) async rethrows -> T {
        var credentials = current
        guard credentials.headerFields.insert(header).inserted else { return try await operation() }
        return try await $current.withValue(credentials, operation: operation)
    }

    /// Runs `operation` (the rest of the chain) with the query item `name` marked as a credential of the request's
    /// origin.
    public static func binding<T>(queryItem name: String, _ operation: () async throws -> T) async rethrows -> T {
        var credentials = current
        guard credentials.queryItems.insert(name).inserted else { return try await operation() }
        return try await $current.withValue(credentials, operation: operation)
    }
}
