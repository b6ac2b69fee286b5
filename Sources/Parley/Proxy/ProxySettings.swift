#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Which proxy each request goes through: one for `http` URLs, one for `https` URLs, one for both, and the hosts that
/// go direct. ``environment(_:)`` reads them as curl does.
///
/// ```swift
/// let settings = ProxySettings.environment()   // http_proxy, https_proxy, all_proxy, no_proxy
/// let transport = ProxyingTransport(settings)   // on AsyncHTTPClient (ParleyAsyncHTTPClient)
/// ```
public struct ProxySettings: Sendable, Hashable {
    /// The proxy of `http` requests (`http_proxy`).
    public var http: Proxy?
    /// The proxy of `https` requests (`https_proxy`).
    public var https: Proxy?
    /// The proxy of requests that the two above leave without one (`all_proxy`).
    public var all: Proxy?
    /// The hosts reached directly (`no_proxy`): curl's rules (see ``bypasses(host:port:)``).
    public var noProxy: [String]
    /// Proxies named that cannot be used (an `https://` proxy, a URL that is not one), by the scheme they were meant
    /// for (`http`, `https`, or `all`): requests that would have gone through them fail instead of going direct.
    public var unusable: [String: String] = [:]

    /// Settings.
    public init(http: Proxy? = nil, https: Proxy? = nil, all: Proxy? = nil, noProxy: [String] = []) {
        self.http = http
        self.https = https
        self.all = all
        self.noProxy = noProxy
    }

    /// One proxy for every request but those of `noProxy`.
    public init(_ proxy: Proxy, noProxy: [String] = []) {
        self.init(all: proxy, noProxy: noProxy)
    }

    /// Whether any proxy is set.
    public var isEmpty: Bool { http == nil && https == nil && all == nil }

    /// The settings in `environment` (this process's by default), as curl reads them: `http_proxy` (lower case only:
    /// an `HTTP_PROXY` may come from a request's `Proxy` header in a CGI program), `https_proxy` or `HTTPS_PROXY`,
    /// `all_proxy` or `ALL_PROXY`, `no_proxy` or `NO_PROXY` (the lower-case form wins). A variable set to nothing
    /// means no proxy. A variable whose value is not a proxy Parley can use (not a URL, or an `https://` proxy) is not
    /// ignored: it fails closed, so the requests meant for that proxy fail (``problem(for:)``, ``unusable``) instead of
    /// going direct. A `no_proxy` entry that does not parse (`127.0.0.1:notaport`, `[::1`) matches no host.
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxySettings {
        // The first variable set wins, even set to nothing (which means none), as in curl.
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first.flatMap { $0.isEmpty ? nil : $0 }
        }
        var settings = ProxySettings(
            http: value("http_proxy").flatMap { Proxy(url: $0) },
            https: value("https_proxy", "HTTPS_PROXY").flatMap { Proxy(url: $0) },
            all: value("all_proxy", "ALL_PROXY").flatMap { Proxy(url: $0) },
            noProxy: (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",").map {
                String($0.filter { $0 != " " && $0 != "\t" })
            }.filter { !$0.isEmpty }
        )
        // A proxy named but not usable fails the requests meant for it (never silently direct).
        for (scheme, names) in [
            ("http", ["http_proxy"]), ("https", ["https_proxy", "HTTPS_PROXY"]), ("all", ["all_proxy", "ALL_PROXY"]),
        ] {
            guard let name = names.first(where: { environment[$0].map { !$0.isEmpty } ?? false }),
                let text = environment[name], Proxy(url: text) == nil
            else { continue }
            let written = text.split(separator: ":").first.map(String.init) ?? ""
            settings.unusable[scheme] =
                "\(name) names a proxy Parley cannot use (\(written.count < 10 ? written : "not a URL"):// is not http://, socks5:// "
                + "or socks5h://)"
        }
        return settings
    }

    /// Why a request to `url` cannot be sent: its proxy was named but cannot be used (``unusable``); `nil` otherwise.
    public func problem(for url: URL) -> String? {
        problem(for: RequestTarget(url))
    }

    /// Why a request to `target` cannot be sent (`problem(for: URL)`).
    package func problem(for target: RequestTarget) -> String? {
        guard let (host, port) = Self.proxied(target), !bypasses(host: host, port: port) else { return nil }
        let secure = target.isSecure
        if secure, https == nil, let reason = unusable["https"] { return reason }
        if !secure, http == nil, let reason = unusable["http"] { return reason }
        if (secure ? https : http) == nil, all == nil, let reason = unusable["all"] { return reason }
        return nil
    }

    /// The proxy of a request to `url`, or `nil` to go direct.
    public func proxy(for url: URL) -> Proxy? {
        proxy(for: RequestTarget(url))
    }

    /// The proxy of a request to `target` (`proxy(for: URL)`).
    package func proxy(for target: RequestTarget) -> Proxy? {
        guard let (host, port) = Self.proxied(target), let proxy = (target.isSecure ? https : http) ?? all else { return nil }
        return bypasses(host: host, port: port) ? nil : proxy
    }

    /// The host (percent-decoded) and port that `no_proxy` is matched against; `nil` for a target no proxy carries: no
    /// scheme, or a Unix socket (which is local).
    private static func proxied(_ target: RequestTarget) -> (host: String, port: Int)? {
        guard !target.scheme.isEmpty, target.unixSocketPath == nil, !target.host.isEmpty else { return nil }
        return (target.decodedHost, target.port ?? 80)
    }

    /// Whether `host` (a name, or an IP address, with or without brackets) on `port` goes direct, by curl's rules for
    /// `no_proxy`: `*` alone matches every host; a name matches itself and the names under it (`example.com` and
    /// `.example.com` match `example.com` and `api.example.com`, not `notexample.com`); an IP address matches itself,
    /// and `10.0.0.0/8` or `fd00::/8` a range; `host:port` (`[::1]:8080` for IPv6) only that port. Names compare
    /// without regard to case and to a trailing dot. An entry that does not parse (`127.0.0.1:notaport`,
    /// `127.0.0.1:`, `[127.0.0.1]:x`, `[::1`, `10.0.0.0/x`) matches no host: it never widens to every port.
    public func bypasses(host: String, port: Int) -> Bool {
        let host = Self.normalized(host)
        let address = IPAddress(host)
        for entry in noProxy {
            if entry == "*" { return true }
            // An entry that does not parse matches nothing (never every port of its host).
            guard let (pattern, wantedPort) = Self.split(entry) else { continue }
            if let wantedPort, wantedPort != port { continue }
            if let slash = pattern.firstIndex(of: "/") {
                guard let address, let bits = Self.digits(pattern[pattern.index(after: slash)...], atMost: 3),
                    let network = IPAddress(String(pattern[..<slash])), address.isIn(network, prefix: bits)
                else { continue }
                return true
            }
            if let address {
                if let other = IPAddress(Self.normalized(pattern)), other == address { return true }
                continue
            }
            var name = Self.normalized(pattern)
            if name.hasPrefix(".") { name.removeFirst() }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// A `no_proxy` entry's host pattern and port: `host`, `host:port`, `[v6]` or `[v6]:port` (a bare IPv6 address
    /// has colons but no brackets); `nil` when the entry does not parse: a `[` without its `]`, anything but a port
    /// after it, or a port that is not 1 to 65535 in digits (`127.0.0.1:notaport`, `127.0.0.1:`).
    static func split(_ entry: String) -> (pattern: String, port: Int?)? {
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return nil }
            let pattern = String(entry[entry.index(after: entry.startIndex)..<close])
            let rest = entry[entry.index(after: close)...]
            guard !pattern.isEmpty, !pattern.contains("[") else { return nil }
            if rest.isEmpty { return (pattern, nil) }
            guard rest.hasPrefix(":"), let port = port(rest.dropFirst()) else { return nil }
            return (pattern, port)
        }
        guard !entry.contains("["), !entry.contains("]") else { return nil }
        guard entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":") else { return (entry, nil) }
        guard colon != entry.startIndex, let port = port(entry[entry.index(after: colon)...]) else { return nil }
        return (String(entry[..<colon]), port)
    }

    /// A port number, 1 to 65535 in decimal digits alone (no sign, no spaces); `nil` otherwise.
    private static func port(_ text: Substring) -> Int? {
        digits(text, atMost: 5).flatMap { (1...65_535).contains($0) ? $0 : nil }
    }

    /// The value of `text` when it is 1 to `atMost` ASCII digits and nothing else.
    private static func digits(_ text: Substring, atMost count: Int) -> Int? {
        guard (1...count).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

/// An IPv4 or IPv6 address as bytes, for `no_proxy`'s exact and range rules.
private struct IPAddress: Equatable {
    let bytes: [UInt8]

    init?(_ text: String) {
        if text.contains(":") {
            guard let bytes = Self.v6(text) else { return nil }
            self.bytes = bytes
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var bytes: [UInt8] = []
            for part in parts {
                guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let byte = UInt8(part) else { return nil }
                bytes.append(byte)
            }
            self.bytes = bytes
        }
    }

    /// Whether this address is in `network`/`prefix`.
    func isIn(_ network: IPAddress, prefix: Int) -> Bool {
        guard bytes.count == network.bytes.count, (0...bytes.count * 8).contains(prefix) else { return false }
        for bit in 0..<prefix {
            let index = bit / 8
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if bytes[index] & mask != network.bytes[index] & mask { return false }
        }
        return true
    }

    /// The 16 bytes of an IPv6 address written with `::` and hex groups (an embedded IPv4 tail is not read).
    private static func v6(_ text: String) -> [UInt8]? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var values: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                values.append(value)
            }
            return values
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}
