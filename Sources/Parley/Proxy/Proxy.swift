#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A proxy server: HTTP (`CONNECT` tunnels for `https`) or SOCKS5, with optional credentials.
///
/// Its ``description`` never shows the credentials: `http://<redacted>@proxy.internal:3128`.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of proxy.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy: plain requests in absolute form, `https` through a `CONNECT` tunnel.
        case http
        /// A SOCKS5 proxy (the proxy resolves host names).
        case socks5
    }

    /// Its kind.
    public var kind: Kind
    /// Its host name or address (an IPv6 address without brackets).
    public var host: String
    /// Its port.
    public var port: Int
    /// A user name and password for it (HTTP proxies: `Proxy-Authorization: Basic`).
    public var credentials: (user: String, password: String)? {
        get { user.map { ($0, password ?? "") } }
        set {
            user = newValue?.user
            password = newValue?.password
        }
    }
    private var user: String?
    private var password: String?

    /// A proxy.
    public init(_ kind: Kind, host: String, port: Int, credentials: (user: String, password: String)? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.user = credentials?.user
        self.password = credentials?.password
    }

    /// A proxy from a URL as curl reads one: `http://host:port`, `socks5://host:port` (`socks5h`, `socks` too),
    /// `user:password@` for credentials (percent-encoded), no scheme for `http`, port 1080 when none is given.
    /// `nil` for a URL that is not one (another scheme, no host, a bad port).
    public init?(url text: String) {
        var text = String(text.trimmingHTTPWhitespace())
        guard !text.isEmpty else { return nil }
        if !text.contains("://") { text = "http://" + text }
        guard let url = URL(string: text) else { return nil }
        let target = RequestTarget(url)
        let host = target.decodedHost
        guard !host.isEmpty, !target.hasBadPort else { return nil }
        switch target.scheme {
        case "http": kind = .http
        case "socks5", "socks5h", "socks": kind = .socks5
        default: return nil
        }
        port = target.explicitPort ?? 1080
        self.host = host
        user = url.user(percentEncoded: false)
        password = url.password(percentEncoded: false)
    }

    /// `http://host:port`, with `<redacted>@` in place of credentials.
    public var description: String {
        "\(kind.rawValue)://\(user == nil ? "" : "<redacted>@")\(RequestTarget.authority(host: host, port: port))"
    }
}
