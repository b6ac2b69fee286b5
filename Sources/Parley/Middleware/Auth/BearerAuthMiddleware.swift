public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends `Authorization: Bearer <token>` with every request, with tokens from an ``AccessTokenProvider``.
///
/// ```swift
/// let client = Client(baseURL: api, middlewares: [.bearerAuth(myTokens)])
/// ```
///
/// - **Proactive refresh**: a token whose ``AccessToken/expiresAt`` falls within `leeway` is replaced before it is
///   sent. (A token that arrives already inside the leeway is still used by the requests that waited for it.)
/// - **Reactive refresh**: when the server answers `401 Unauthorized`, the token is refreshed once and the request
///   sent once more, if its body can be sent again (no body, or an `HTTPBody` whose `iterationBehavior` is
///   `.multiple`; otherwise the 401 is returned as it is). The first 401's body is read (at most 64 KiB) and
///   dropped. If the replay is rejected too, its 401 is returned: there is no loop. A request is only replayed
///   after the server refused it unauthenticated, so this holds for non-idempotent methods as well. The provider
///   is told why (``AccessTokenRequest``) and what the server's `Bearer` challenge said.
/// - **Scope step-up**: for a provider that ``AccessTokenProvider/stepsUpScopes``, a `403 Forbidden` whose challenge
///   says `insufficient_scope` is handled the same way, once: the provider is asked for a token with the scopes the
///   challenge names, and the request is sent once more; a second 403 is returned as it is.
/// - **Single flight**: however many requests need a new token at once, the provider is asked once; a request
///   whose 401 came with a token that has been replaced since is replayed with the current one. Waiting
///   requests can be cancelled.
/// - **Failures**: when the provider fails, every request waiting for it fails with
///   ``ParleyError/Kind/authentication``; requests that were already in flight with the old token and get a 401
///   fail the same way; the next new request asks the provider again. A refresh runs to its end even when
///   every request waiting for it has been cancelled or timed out (its token is kept); a provider call that
///   never returns holds every request that needs a token, so give the provider's own requests a timeout.
/// - **No leaks**: errors from the provider and from downstream have the token values scrubbed from their
///   descriptions (`<redacted>`), and ``AccessToken`` never prints its value.
///
/// Copies share one token and one refresh; give each client its own middleware unless they share a server.
/// An existing `Authorization` header on the request is replaced. The token never follows a redirect to another
/// origin (``OriginBoundCredentials``).
public struct BearerAuthMiddleware: ClientMiddleware {
    /// The default leeway: 30 seconds.
    public static let defaultLeeway: Duration = .seconds(30)

    private let cache: AccessTokenCache

    /// A middleware that takes its tokens from `provider`, refreshing them `leeway` before they expire.
    public init(_ provider: some AccessTokenProvider, leeway: Duration = Self.defaultLeeway) {
        cache = AccessTokenCache(provider: provider, leeway: leeway)
    }

    /// Adds the bearer token; refreshes and replays once on 401 (and on 403 `insufficient_scope`, for a provider that
    /// steps up scopes).
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let lease = try await cache.lease()
        let (response, responseBody) = try await Self.send(request, body: body, baseURL: baseURL, token: lease.token, next: next)
        guard body.map({ $0.iterationBehavior == .multiple }) ?? true,
            let rejection = AccessTokenRequest.rejection(by: response, stepsUp: cache.stepsUpScopes)
        else {
            return (response, responseBody)
        }
        await UnusedBody.drain(responseBody)
        let fresh: AccessTokenCache.Lease
        do {
            fresh = try await cache.lease(after: lease, because: rejection)
        } catch {
            throw error.kind == .authentication ? error.attaching(response: response) : error
        }
        return try await Self.send(request, body: body, baseURL: baseURL, token: fresh.token, next: next)
    }

    /// Sends `request` with `token`, scrubbing the token out of any error from downstream.
    private static func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        token: AccessToken,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let value = "Bearer \(token.value)"
        guard HTTPField.isValidValue(value) else {
            // HTTPFields would turn a CR or LF into a space and send the rest: a header injected by the provider.
            throw ParleyError(
                .invalidRequest,
                "The access token from the token provider holds a character a header value may not hold (CR, LF, NUL or "
                    + "another control character, or whitespace at its start or end); refusing to send it. Check what the "
                    + "provider returns. Nothing was sent."
            )
        }
        var request = request
        request.headerFields[.authorization] = value
        do {
            return try await OriginBoundCredentials.binding(header: .authorization) { [request] in
                try await next(request, body, baseURL)
            }
        } catch {
            throw Redaction([token.value]).scrub(error)
        }
    }
}

extension ClientMiddleware where Self == BearerAuthMiddleware {
    /// A ``BearerAuthMiddleware`` with tokens from `provider`, refreshed `leeway` before they expire.
    public static func bearerAuth(
        _ provider: some AccessTokenProvider,
        leeway: Duration = BearerAuthMiddleware.defaultLeeway
    ) -> BearerAuthMiddleware {
        BearerAuthMiddleware(provider, leeway: leeway)
    }

    /// A ``BearerAuthMiddleware`` with tokens from a closure, called with the token being replaced (`nil` for the
    /// first one).
    public static func bearerAuth(
        leeway: Duration = BearerAuthMiddleware.defaultLeeway,
        token: @escaping @Sendable (_ stale: AccessToken?) async throws -> AccessToken
    ) -> BearerAuthMiddleware {
        BearerAuthMiddleware(ClosureAccessTokenProvider(token), leeway: leeway)
    }
}
