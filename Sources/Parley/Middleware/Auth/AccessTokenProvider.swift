/// Where ``BearerAuthMiddleware`` gets its access tokens: an OAuth client, a keychain, a token file.
///
/// The middleware calls ``token(replacing:)`` once for the first request, again when the token it holds is about
/// to expire, and again when the server rejects it with `401 Unauthorized`. Calls never overlap: however many
/// requests need a new token at once, the provider is asked once and they all share the answer.
///
/// A provider should not send its own requests through a client that runs this middleware (use a separate
/// client for the token endpoint), or a refresh would wait on itself.
public protocol AccessTokenProvider: Sendable {
    /// A valid token.
    ///
    /// - Parameter stale: `nil` for the first token; otherwise the token being replaced, because it expires
    ///   within the middleware's leeway or because the server rejected it. Return a different token (use your
    ///   refresh token, log in again); returning the same one makes the next request fail with 401.
    /// - Throws: Any error when no token can be had. The waiting requests fail with
    ///   ``ParleyError/Kind/authentication``, whose message includes this error's description with any token
    ///   value the middleware knows replaced by `<redacted>`.
    func token(replacing stale: AccessToken?) async throws -> AccessToken
}

/// An ``AccessTokenProvider`` made from a closure.
///
/// ```swift
/// let provider = ClosureAccessTokenProvider { stale in
///     try await oauth.refresh(stale)   // -> AccessToken
/// }
/// ```
public struct ClosureAccessTokenProvider: AccessTokenProvider {
    private let body: @Sendable (AccessToken?) async throws -> AccessToken

    /// A provider that calls `body` with the token being replaced (`nil` for the first one).
    public init(_ body: @escaping @Sendable (_ stale: AccessToken?) async throws -> AccessToken) {
        self.body = body
    }

    /// Calls the closure.
    public func token(replacing stale: AccessToken?) async throws -> AccessToken {
        try await body(stale)
    }
}
