public import HTTPTypes

/// How a client follows redirects (301, 302, 303, 307, 308 with a `Location`).
///
/// Parley follows redirects itself, under the middlewares, so every transport behaves the same; the
/// transports' own following is turned off. Each hop is checked:
/// - at most ``maxRedirects`` hops, and never the same method and URL twice (a loop);
/// - no move from `https` to `http` unless ``allowsDowngrade``;
/// - credentials are removed once a hop leaves the origin (scheme, host and port) of the first request, and stay
///   removed: the header fields in ``credentialHeaderFields`` (by default `Authorization`, `Cookie`,
///   `Proxy-Authorization` and `X-API-Key`), the query items named in ``credentialQueryItems`` when the new
///   `Location` carries them, and whatever header field or query item Parley's auth middlewares added
///   (``OriginBoundCredentials``), under any name;
/// - 303 becomes GET without a body (HEAD stays HEAD), as do 301 and 302 after a POST (as browsers do);
///   307 and 308 keep the method and the body, which must be replayable.
///
/// A refused redirect fails with ``ParleyError/Kind/redirect``. A 3xx without `Location`, and any 3xx when
/// ``maxRedirects`` is 0 (``none``), is returned as the response.
public struct RedirectPolicy: Sendable, Hashable {
    // swift-format-ignore: NeverForceUnwrap
    /// The header fields removed by default on a hop to another origin: `Authorization`, `Cookie`,
    /// `Proxy-Authorization`, `X-API-Key`.
    public static let defaultCredentialHeaderFields: Set<HTTPField.Name> = [
        .authorization, .cookie, .proxyAuthorization,
        HTTPField.Name("X-API-Key")!,  // SAFE: a literal that is a valid field-name token, so the initializer never returns nil.
    ]

    /// The most hops followed for one request; 0 follows none.
    public var maxRedirects: Int
    /// Whether a hop from `https` to `http` is followed.
    public var allowsDowngrade: Bool
    /// Header fields that carry credentials, removed from a hop to another origin. Add the names your own
    /// middlewares or default headers use for secrets. Default: ``defaultCredentialHeaderFields``.
    public var credentialHeaderFields: Set<HTTPField.Name>
    /// Names of query items that carry credentials (such as `api_key`), removed from the URL of a hop to another
    /// origin (a server may copy the request's query into its `Location`). Default: none besides those Parley's auth
    /// middlewares add, which are always removed.
    public var credentialQueryItems: Set<String>

    /// Follow up to `maxRedirects` hops (default 5), without downgrade unless `allowsDowngrade`, removing
    /// `credentialHeaderFields` and `credentialQueryItems` on a hop to another origin.
    public init(
        maxRedirects: Int = 5,
        allowsDowngrade: Bool = false,
        credentialHeaderFields: Set<HTTPField.Name> = Self.defaultCredentialHeaderFields,
        credentialQueryItems: Set<String> = []
    ) {
        self.maxRedirects = max(0, maxRedirects)
        self.allowsDowngrade = allowsDowngrade
        self.credentialHeaderFields = credentialHeaderFields
        self.credentialQueryItems = credentialQueryItems
    }

    /// Follow no redirect: a 3xx response is returned as it is.
    public static let none = RedirectPolicy(maxRedirects: 0)
}
