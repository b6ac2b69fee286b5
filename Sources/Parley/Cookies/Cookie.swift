#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A cookie as a ``CookieJar`` keeps it (RFC 6265, section 5.3).
public struct Cookie: Sendable, Hashable, Codable {
    /// The cookie's name.
    public var name: String
    /// The cookie's value, as the server wrote it.
    public var value: String
    /// The host that set it when ``isHostOnly``; otherwise the domain whose hosts (itself and its subdomains) get it.
    public var domain: String
    /// Whether only the host that set it gets it back (the server sent no `Domain` attribute).
    public var isHostOnly: Bool
    /// The path below which it is sent.
    public var path: String
    /// Whether it is sent over secure connections (`https`, `wss`) only.
    public var isSecure: Bool
    /// Whether the server marked it `HttpOnly` (meaningful to browsers' scripts; an HTTP client sends it as any other).
    public var isHTTPOnly: Bool
    /// When it expires; `nil` for a session cookie, which lives as long as its jar (and is saved with it).
    public var expires: Date?
    /// When it was first stored: of two cookies with paths of the same length, the older is sent first.
    public var created: Date

    /// A cookie.
    public init(
        name: String,
        value: String,
        domain: String,
        isHostOnly: Bool = true,
        path: String = "/",
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        expires: Date? = nil,
        created: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.expires = expires
        self.created = created
    }

    /// Whether it has expired at `now`.
    public func isExpired(at now: Date = Date()) -> Bool {
        expires.map { $0 <= now } ?? false
    }
}
