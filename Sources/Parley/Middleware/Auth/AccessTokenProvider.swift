public import HTTPTypes

/// Where ``BearerAuthMiddleware`` gets its access tokens: an OAuth client, a keychain, a token file.
///
/// The middleware asks for a token once for the first request, again when the token it holds is about to expire,
/// again when the server rejects it with `401 Unauthorized`, and, for a provider that ``stepsUpScopes``, when the
/// server answers `403 Forbidden` with the `insufficient_scope` error of RFC 6750. Calls never overlap: however many
/// requests need a new token at once, the provider is asked once and they all share the answer.
///
/// Implement ``token(replacing:)``; implement ``token(for:)`` as well to see why a token is needed and what the
/// server's challenge said (the scopes it asks for, its resource metadata).
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

    /// A valid token for `request`: why one is needed and what the server said when it rejected the last one.
    ///
    /// By default, ``token(replacing:)`` with the request's ``AccessTokenRequest/stale`` token.
    func token(for request: AccessTokenRequest) async throws -> AccessToken

    /// Whether a request answered `403 Forbidden` with RFC 6750's `insufficient_scope` is sent again with a new
    /// token (asked for with ``AccessTokenRequest/Reason/insufficientScope`` and the scopes the server named), once.
    /// `false` by default: a provider that cannot ask for more scopes would only spend a refresh on each such answer.
    var stepsUpScopes: Bool { get }
}

extension AccessTokenProvider {
    /// ``token(replacing:)`` with `request`'s stale token.
    public func token(for request: AccessTokenRequest) async throws -> AccessToken {
        try await token(replacing: request.stale)
    }

    /// `false`: a 403 is returned as it is.
    public var stepsUpScopes: Bool { false }
}

/// Why ``BearerAuthMiddleware`` asks its ``AccessTokenProvider`` for a token and, when the server rejected the last
/// one, what it said: the status and the parts of its `Bearer` challenge (`WWW-Authenticate`, RFC 6750 section 3)
/// that a provider acts on.
///
/// The challenge is read as every byte a server sends is read: a challenge that breaks the grammar of RFC 9110
/// section 11.6.1, or a value with a control character, is ignored, and its parts are then `nil` or empty. A
/// challenge's values are the server's words: check ``resourceMetadata`` against the server you meant to call before
/// you fetch it.
public struct AccessTokenRequest: Sendable, Hashable {
    /// Why a token is needed.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        /// A short stable label: `"initial"`.
        public let label: String

        private init(label: String) {
            self.label = label
        }

        /// The first token: the middleware holds none.
        public static let initial = Reason(label: "initial")
        /// The token held expires within the middleware's leeway, or its last refresh failed.
        public static let refresh = Reason(label: "refresh")
        /// The server rejected the token held with `401 Unauthorized`.
        public static let rejected = Reason(label: "rejected")
        /// The server answered `403 Forbidden` with `error="insufficient_scope"`: a token with the scopes it names
        /// (``AccessTokenRequest/scopes``), besides those already held, is needed.
        public static let insufficientScope = Reason(label: "insufficientScope")

        /// The label.
        public var description: String { label }
    }

    /// Why a token is needed.
    public var reason: Reason
    /// The token being replaced; `nil` for the first one.
    public var stale: AccessToken?
    /// The status of the response that rejected ``stale`` (401 or 403); `nil` otherwise.
    public var status: HTTPResponse.Status?
    /// The challenge's `error` (`invalid_token`, `insufficient_scope`, …), when it sent one.
    public var error: String?
    /// The challenge's `scope`, split at spaces: the scopes the server says the request needs; empty when not sent.
    public var scopes: [String]
    /// The challenge's `resource_metadata` (RFC 9728 section 5.1): where the server's protected-resource metadata
    /// is, when it sent it.
    public var resourceMetadata: String?

    /// A request for a token for `reason`.
    public init(
        reason: Reason,
        stale: AccessToken? = nil,
        status: HTTPResponse.Status? = nil,
        error: String? = nil,
        scopes: [String] = [],
        resourceMetadata: String? = nil
    ) {
        self.reason = reason
        self.stale = stale
        self.status = status
        self.error = error
        self.scopes = scopes
        self.resourceMetadata = resourceMetadata
    }

    /// The request for a new token that `response` calls for, given `stepsUp` (``AccessTokenProvider/stepsUpScopes``):
    /// a 401 rejects the token, a 403 whose `Bearer` challenge says `insufficient_scope` asks for more scopes; any
    /// other response, none. ``stale`` is left for the middleware to fill.
    package static func rejection(by response: HTTPResponse, stepsUp: Bool) -> AccessTokenRequest? {
        let reason: Reason
        switch response.status.code {
        case 401: reason = .rejected
        case 403 where stepsUp: reason = .insufficientScope
        default: return nil
        }
        let challenge = AuthenticationChallenge.parse(response.headerFields[values: .wwwAuthenticate]).first {
            $0.scheme == "bearer"
        }
        if reason == .insufficientScope, challenge?.error != "insufficient_scope" { return nil }
        return AccessTokenRequest(
            reason: reason,
            status: response.status,
            error: challenge?.error,
            scopes: challenge?.scopes ?? [],
            resourceMetadata: challenge?.resourceMetadata
        )
    }
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
