#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A bearer access token and, when known, the moment it stops being accepted.
///
/// Fill it from an OAuth 2.0 token response (RFC 6749 §5.1), whose `expires_in` is a number of seconds from now:
///
/// ```swift
/// struct TokenResponse: Decodable { let access_token: String; let expires_in: Int? }
/// let reply = try JSONDecoder().decode(TokenResponse.self, from: body)
/// let token = AccessToken(reply.access_token, expiresIn: reply.expires_in.map { .seconds($0) })
/// ```
///
/// or from an absolute expiry such as a JWT's `exp` claim with ``init(_:expiresAt:)``. The expiry is wall-clock
/// time (`Date`) because that is how servers state it; ``BearerAuthMiddleware`` compares it with `Date.now` and
/// refreshes a token that expires within its leeway before sending it. A token without an expiry is used until
/// the server rejects it with `401 Unauthorized`.
///
/// Its `description` never shows the value, so a token can be logged or interpolated without leaking.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token, sent as `Authorization: Bearer <value>`.
    public var value: String
    /// When the token stops being accepted, or `nil` when unknown.
    public var expiresAt: Date?

    /// A token that expires at `expiresAt` (`nil`: unknown).
    public init(_ value: String, expiresAt: Date? = nil) {
        self.value = value
        self.expiresAt = expiresAt
    }

    /// A token that expires `expiresIn` from now (an OAuth `expires_in`); `nil` for an unknown lifetime.
    public init(_ value: String, expiresIn: Duration?) {
        self.value = value
        self.expiresAt = expiresIn.map { Date.now.addingTimeInterval(Self.seconds($0)) }
    }

    /// Whether the token expires at or before `leeway` after `now`. A token without an expiry never does.
    public func expires(within leeway: Duration, of now: Date = .now) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= Self.seconds(leeway)
    }

    /// `AccessToken(<redacted>, expires …)`: never the value.
    public var description: String {
        guard let expiresAt else { return "AccessToken(\(Redaction.placeholder))" }
        return "AccessToken(\(Redaction.placeholder), expires \(expiresAt))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
