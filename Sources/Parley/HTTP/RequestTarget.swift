package import HTTPTypes

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// A request's absolute URL taken apart once: what every stage reads of it (the cookie jar, the cache, proxies,
/// pinning, redirects, logging, metrics, tracing and error text), so that no stage parses a URL string of its own.
///
/// The pipeline makes one per call from the parsed base URL (stage 1), and ``RedirectState`` the next one for each hop;
/// a transport or a middleware given only an `HTTPRequest` makes it with ``init(_:baseURL:)``. The parse is
/// lenient (it never fails): the URL Parley sends was built from a validated base URL, and a fact that cannot be read
/// is empty or `nil`.
package struct RequestTarget: Sendable {
    /// The URL as sent, user info included: never for a log, a span or an error (``redacted``).
    package let text: String
    /// The scheme (lowercased): `http`, `https`, `http+unix`, …; empty when the URL has none.
    package let scheme: String
    /// The host as written, without brackets for an IPv6 address (a Unix socket's path percent-encoded).
    package let host: String
    /// The port written in the URL, when it is a number from 1 to 65535.
    package let explicitPort: Int?
    /// Whether the URL writes a port that is not a number from 1 to 65535 (`host:x`, `host:0`).
    package let hasBadPort: Bool
    /// Where the user info is (`scheme://USERINFO@host`), if the URL has one.
    package let userInfo: Range<String.Index>?
    /// Where the path starts (the end of the authority).
    private let pathStart: String.Index
    /// Where the query is (after its `?`, before any `#`), if the URL has one.
    private let query: Range<String.Index>?

    /// The URL of `request`: its scheme, authority and path when it has them (as `Client` sets them), otherwise
    /// `baseURL` followed by its path.
    package init(_ request: HTTPRequest, baseURL: URL?) {
        self.init(Self.text(of: request, baseURL: baseURL))
    }

    /// The target of an absolute URL.
    package init(_ url: URL) {
        self.init(url.absoluteString)
    }

    /// The target of URL text: `scheme://[user-info@]host[:port][/path][?query][#fragment]`.
    ///
    /// Read byte by byte (its delimiters are ASCII, so their positions in the UTF-8 view are positions in the text):
    /// every call parses one, and reading it as Characters cost several microseconds.
    package init(_ text: String) {
        self.text = text
        let bytes = text.utf8
        var authorityStart = bytes.startIndex
        var scheme = ""
        // The first `://`, unless a `/`, `?`, `#` or `@` comes before it.
        var index = bytes.startIndex
        scan: while index != bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: ":"):
                let rest = bytes[bytes.index(after: index)...]
                if rest.starts(with: "//".utf8) {
                    let raw = text[..<index]
                    scheme = raw.utf8.contains { (65...90).contains($0) } ? raw.lowercased() : String(raw)
                    authorityStart = bytes.index(index, offsetBy: 3)
                    break scan
                }
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"):
                break scan
            default:
                break
            }
            index = bytes.index(after: index)
        }
        self.scheme = scheme
        let authorityEnd = bytes[authorityStart...].firstIndex { Self.endsAuthority($0) } ?? bytes.endIndex
        pathStart = authorityEnd
        var hostPort = bytes[authorityStart..<authorityEnd]
        if let at = hostPort.lastIndex(of: UInt8(ascii: "@")) {
            userInfo = authorityStart..<at
            hostPort = hostPort[hostPort.index(after: at)...]
        } else {
            userInfo = nil
        }
        var portText: Substring?
        if hostPort.first == UInt8(ascii: "["), let close = hostPort.firstIndex(of: UInt8(ascii: "]")) {
            host = String(text[hostPort.index(after: hostPort.startIndex)..<close])
            let rest = text[hostPort.index(after: close)..<hostPort.endIndex]
            portText = rest.hasPrefix(":") ? rest.dropFirst() : (rest.isEmpty ? nil : rest)
        } else if let colon = hostPort.lastIndex(of: UInt8(ascii: ":")) {
            host = String(text[hostPort.startIndex..<colon])
            portText = text[hostPort.index(after: colon)..<hostPort.endIndex]
        } else {
            host = String(text[hostPort.startIndex..<hostPort.endIndex])
        }
        // An empty port (`host:`) is no port, as in RFC 3986.
        let written = portText.flatMap { $0.isEmpty ? nil : $0 }
        let number = written.flatMap { $0.utf8.count <= 5 ? Int($0) : nil }.flatMap { (1...65_535).contains($0) ? $0 : nil }
        explicitPort = number
        hasBadPort = written != nil && number == nil
        if let mark = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "?")) {
            query = bytes.index(after: mark)..<(bytes[mark...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex)
        } else {
            query = nil
        }
    }

    /// Whether `byte` ends the authority: `/`, `?` or `#`.
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// The target of `request`: the call's own (made in stage 1, or by ``RedirectState`` for the hop in progress) when
    /// it is `request`'s URL, else `request`'s URL parsed.
    package static func of(_ request: HTTPRequest, baseURL: URL?) -> RequestTarget {
        if let target = CallScope.current?.target, target.describes(request, baseURL: baseURL) { return target }
        return RequestTarget(request, baseURL: baseURL)
    }

    /// Whether this is the URL of `request` (``text(of:baseURL:)``), checked without building that text.
    func describes(_ request: HTTPRequest, baseURL: URL?) -> Bool {
        guard let scheme = request.scheme, let authority = request.authority else {
            return text == Self.text(of: request, baseURL: baseURL)
        }
        let path = request.path ?? "/"
        var rest = text.utf8[...]
        for part in [scheme.utf8[...], "://".utf8[...], authority.utf8[...]] {
            guard rest.starts(with: part) else { return false }
            rest = rest.dropFirst(part.count)
        }
        return rest.elementsEqual(path.utf8)
    }

    /// The URL text of `request` (see ``init(_:baseURL:)``).
    package static func text(of request: HTTPRequest, baseURL: URL?) -> String {
        let path = request.path ?? "/"
        if let scheme = request.scheme, let authority = request.authority {
            var url = ""
            url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
            url += scheme
            url += "://"
            url += authority
            url += path
            return url
        }
        var base = baseURL?.absoluteString ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    // MARK: - Facts

    /// The host percent-decoded (as written when it does not decode), without brackets.
    package var decodedHost: String { PercentEncoding.decode(host[...]) ?? host }

    /// The port: the one written, else the scheme's default (``defaultPort(of:)``); `nil` for neither.
    package var port: Int? { explicitPort ?? Self.defaultPort(of: scheme) }

    /// The port a scheme implies: 443 for `https` and `wss`, 80 for `http` and `ws`; `nil` for others (a Unix socket).
    package static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "https", "wss": 443
        case "http", "ws": 80
        default: nil
        }
    }

    /// Whether the scheme is a TLS one (`https`, `wss`).
    package var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// The authority as a server reads it in `Host`: the host (in brackets for IPv6) and the written port, without
    /// user info.
    package var authority: String { Self.authority(host: host, port: explicitPort) }

    /// `host` (in brackets when it is an IPv6 address) and `port` when given: an authority.
    package static func authority(host: String, port: Int?) -> String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// The path and query, percent-encoded as written (`/` when the URL has no path), without a fragment.
    package var pathAndQuery: String {
        let end = text.utf8[pathStart...].firstIndex(of: UInt8(ascii: "#")) ?? text.endIndex
        let path = text[pathStart..<end]
        return path.isEmpty ? "/" : (path.hasPrefix("/") ? String(path) : "/" + path)
    }

    /// Everything after the authority as written: path, query and fragment.
    package var afterAuthority: Substring { text[pathStart...] }

    /// The path, percent-encoded as written, without query or fragment (empty when the URL has none).
    package var path: Substring {
        let end = text.utf8[pathStart...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        return text[pathStart..<(end ?? text.endIndex)]
    }

    /// The query, percent-encoded as written, without its `?`.
    package var queryText: Substring? { query.map { text[$0] } }

    /// Scheme, host (lowercased) and port: what must be the same for a credential or a stored answer to carry over.
    package var origin: Origin { Origin(scheme: scheme, host: host.lowercased(), port: port) }

    /// The path of the Unix domain socket of an `http+unix` or `https+unix` URL (its host, percent-decoded).
    package var unixSocketPath: String? {
        scheme.hasSuffix("+unix") ? decodedHost : nil
    }

    /// The target that `reference` (a `Location`, a `Content-Location`: hostile text) names, resolved against this
    /// URL as RFC 3986 says; `nil` when it names no URL.
    package func resolving(_ reference: String) -> RequestTarget? {
        guard let base = URL(string: text), let resolved = URL(string: reference, relativeTo: base)?.absoluteURL else {
            return nil
        }
        return RequestTarget(resolved)
    }

    /// Scheme, host and port of a URL, compared exactly (host without regard to case, no brackets, the default port
    /// when none is written).
    package struct Origin: Hashable, Sendable {
        package let scheme: String
        package let host: String
        package let port: Int?
    }

    // MARK: - Secrets

    /// The URL with its user info replaced by `<redacted>` (`<redacted>:<redacted>` for a user and a password).
    package var redacted: String { redacted(queryItems: [], placeholder: Redaction.placeholder) }

    /// The URL with its user info, and the values of query items named in `queryItems` (compared without regard
    /// to case, after percent-decoding), replaced by `placeholder`.
    package func redacted(queryItems: Set<String>, placeholder: String) -> String {
        guard userInfo != nil || (query != nil && !queryItems.isEmpty) else { return text }
        var result = ""
        var position = text.startIndex
        if let userInfo {
            result += text[position..<userInfo.lowerBound]
            result += text[userInfo].contains(":") ? placeholder + ":" + placeholder : placeholder
            position = userInfo.upperBound
        }
        if let query, !queryItems.isEmpty {
            result += text[position..<query.lowerBound]
            result += text[query].split(separator: "&", omittingEmptySubsequences: false).map { item in
                guard let equals = item.firstIndex(of: "="), queryItems.contains(Self.name(item[..<equals])) else {
                    return String(item)
                }
                return String(item[...equals]) + placeholder
            }.joined(separator: "&")
            position = query.upperBound
        }
        return result + text[position...]
    }

    /// The raw and the percent-decoded values of the user info (user name, password) and of the query items named in
    /// `queryItems`: the secrets to scrub out of text that may quote the URL.
    package func secrets(queryItems: Set<String> = []) -> [String] {
        var secrets: [String] = []
        if let userInfo {
            for part in text[userInfo].split(separator: ":") {
                secrets += [String(part), PercentEncoding.decode(part) ?? String(part)]
            }
        }
        guard let query, !queryItems.isEmpty else { return secrets }
        for item in text[query].split(separator: "&") {
            guard let equals = item.firstIndex(of: "="), queryItems.contains(Self.name(item[..<equals])) else { continue }
            let value = String(item[item.index(after: equals)...])
            secrets += [value, PercentEncoding.decode(value[...], plusAsSpace: true) ?? ""]
        }
        return secrets
    }

    /// A query item's name, percent-decoded and lowercased, for comparing with a redaction list.
    static func name(_ raw: Substring) -> String {
        (PercentEncoding.decode(raw, plusAsSpace: true) ?? String(raw)).lowercased()
    }
}
