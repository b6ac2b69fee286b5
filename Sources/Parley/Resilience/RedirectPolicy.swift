/// How a client follows redirects (301, 302, 303, 307, 308 with a `Location`).
///
/// Parley follows redirects itself, under the middlewares, so every transport behaves the same; the
/// transports' own following is turned off. Each hop is checked:
/// - at most ``maxRedirects`` hops, and never the same method and URL twice (a loop);
/// - no move from `https` to `http` unless ``allowsDowngrade``;
/// - `Authorization`, `Cookie` and `Proxy-Authorization` are removed once a hop leaves the origin (scheme,
///   host and port) of the first request, and stay removed;
/// - 303 becomes GET without a body (HEAD stays HEAD), as do 301 and 302 after a POST (as browsers do);
///   307 and 308 keep the method and the body, which must be replayable.
///
/// A refused redirect fails with ``ParleyError/Kind/redirect``. A 3xx without `Location`, and any 3xx when
/// ``maxRedirects`` is 0 (``none``), is returned as the response.
public struct RedirectPolicy: Sendable, Hashable {
    /// The most hops followed for one request; 0 follows none.
    public var maxRedirects: Int
    /// Whether a hop from `https` to `http` is followed.
    public var allowsDowngrade: Bool

    /// Follow up to `maxRedirects` hops (default 5), without downgrade unless `allowsDowngrade`.
    public init(maxRedirects: Int = 5, allowsDowngrade: Bool = false) {
        self.maxRedirects = max(0, maxRedirects)
        self.allowsDowngrade = allowsDowngrade
    }

    /// Follow no redirect: a 3xx response is returned as it is.
    public static let none = RedirectPolicy(maxRedirects: 0)
}
