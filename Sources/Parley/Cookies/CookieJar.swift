#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the cookies servers set and sends them back as RFC 6265 says: to the host that set them (or, with a `Domain`
/// attribute, to that domain and its subdomains), below their path, over secure connections only when `Secure`, until
/// they expire. A server replaces a cookie by setting it again and deletes it with an expiry in the past.
///
/// Give a jar to a client (``Client/Configuration/cookies``) and every request of the client, every redirect hop
/// included, sends the cookies that belong to its URL and stores the ones its response sets:
///
/// ```swift
/// let jar = CookieJar()
/// var configuration = Client.Configuration()
/// configuration.cookies = jar
/// let client = Client(baseURL: api, configuration: configuration)
/// ```
///
/// Never to another site: a `Domain` attribute that does not cover the host that set it is refused, and so is one
/// that names a public suffix alone (`com`, `co.uk`: a cookie for every site under it), as is a `Secure` cookie set
/// over plain HTTP. Nothing but the cookie itself on the wire: the jar keeps only names and values RFC 6265 section
/// 4.1.1 lets a server send (a token; cookie-octets, optionally in double quotes: no space, `"`, `,`, `;`, `\`,
/// control character or non-ASCII byte), whether a server sets them, ``insert(_:)`` adds them or a file holds them.
/// Bounded: at most ``maxCookiesPerDomain`` per domain and ``maxCookies`` in all (the oldest go first), 4096 bytes a
/// cookie; storing a cookie takes about as long in a full jar as in an empty one. ``save(to:)`` and
/// ``init(contentsOf:maxCookies:maxCookiesPerDomain:)`` keep a jar in a file (readable by its owner only) between
/// runs. Safe to share between clients and tasks.
public final class CookieJar: Sendable {
    /// The most cookies kept for one domain.
    public let maxCookiesPerDomain: Int
    /// The most cookies kept in all.
    public let maxCookies: Int
    private let state: LockedState<CookieStorage>

    /// An empty jar.
    public init(maxCookies: Int = 3000, maxCookiesPerDomain: Int = 50) {
        self.maxCookies = max(1, maxCookies)
        self.maxCookiesPerDomain = max(1, maxCookiesPerDomain)
        state = LockedState(CookieStorage())
    }

    /// A jar with the cookies saved in `file` by ``save(to:)``; an empty one when the file does not exist.
    ///
    /// Expired cookies are dropped, and so is a cookie that no server could have set (a name that is not an RFC 6265
    /// token, or a value that is not cookie-octets, such as one holding a `;` that would add cookies of its own to the
    /// `Cookie` field): the others are read. `file` may be a symbolic link to the jar's file; its size and kind are
    /// checked on the opened file, before a byte of it is read.
    ///
    /// - Throws: ``ParleyError/Kind/decoding`` when the file is not a saved jar; ``ParleyError/Kind/invalidRequest``
    ///   when it cannot be read, is not a regular file (a directory, a pipe) or is larger than ``maxFileSize``.
    public convenience init(contentsOf file: URL, maxCookies: Int = 3000, maxCookiesPerDomain: Int = 50) throws(ParleyError) {
        self.init(maxCookies: maxCookies, maxCookiesPerDomain: maxCookiesPerDomain)
        guard let data = try PrivateFile.read(file.path, limit: Self.maxFileSize, what: "The cookie file") else { return }
        let saved: [Cookie]
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            saved = try decoder.decode(SavedJar.self, from: data).cookies
        } catch {
            throw ParleyError(
                .decoding,
                "The cookie file \(file.path) is not a saved cookie jar (\(error)). Remove it to start afresh.",
                underlying: error
            )
        }
        let now = Date()
        state.withLock { cookies in
            for cookie in saved where !cookie.isExpired(at: now) && Self.isWellFormed(cookie) {
                cookies.insert(cookie, limits: self.limits)
            }
        }
    }

    /// The largest cookie file ``init(contentsOf:maxCookies:maxCookiesPerDomain:)`` reads.
    public static let maxFileSize = 16 * 1024 * 1024

    private var limits: (total: Int, perDomain: Int) { (maxCookies, maxCookiesPerDomain) }

    /// Every cookie not yet expired, oldest first.
    public var cookies: [Cookie] {
        let now = Date()
        return state.withLock { $0.all(removingExpiredAt: now) }
    }

    /// The cookies to send to `url`, in the order they go in the `Cookie` field (longer paths first, then older).
    public func cookies(for url: URL) -> [Cookie] {
        cookies(for: RequestTarget(url))
    }

    /// The cookies to send to `target` (`cookies(for: URL)`).
    package func cookies(for target: RequestTarget) -> [Cookie] {
        guard let target = Target(target) else { return [] }
        let now = Date()
        let matching = state.withLock { $0.cookies(inDomains: target.domains, removingExpiredAt: now) }
            .filter { Self.belongs($0.cookie, to: target) }
        // By path length, then oldest first.
        return matching.sorted { ($0.cookie.path.utf8.count, $1.rank) > ($1.cookie.path.utf8.count, $0.rank) }.map(\.cookie)
    }

    /// The `Cookie` field value for `url` (`a=1; b=2`), or `nil` when no cookie belongs to it.
    public func cookieHeader(for url: URL) -> String? {
        cookieHeader(for: RequestTarget(url))
    }

    /// The `Cookie` field value for `target` (`cookieHeader(for: URL)`).
    package func cookieHeader(for target: RequestTarget) -> String? {
        let cookies = cookies(for: target)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the cookies of the `Set-Cookie` field values of a response from `url`; a value that breaks the rules
    /// (see the type's description) is ignored, as RFC 6265 says.
    public func store(_ setCookieValues: [String], from url: URL) {
        store(setCookieValues, from: RequestTarget(url))
    }

    /// Stores the cookies a response from `target` sets (`store(_:from: URL)`).
    package func store(_ setCookieValues: [String], from target: RequestTarget) {
        guard !setCookieValues.isEmpty, let origin = Target(target) else { return }
        let now = Date()
        let parsed = setCookieValues.compactMap { SetCookie.parse($0) }.compactMap {
            Self.cookie(from: $0, origin: origin, now: now)
        }
        guard !parsed.isEmpty else { return }
        state.withLock { cookies in
            for (cookie, isDeletion) in parsed {
                // RFC 6265bis: plain HTTP may not replace (nor shadow) a Secure cookie of that name.
                if !origin.isSecure,
                    cookies.secureCookies(named: cookie.name).contains(where: {
                        $0.isSecure && $0.name == cookie.name
                            && (Self.domainMatches($0.domain, cookie.domain, hostIsAddress: origin.isAddress)
                                || Self.domainMatches(cookie.domain, $0.domain, hostIsAddress: origin.isAddress))
                            && Self.pathMatches(cookie.path, $0.path)
                    })
                {
                    continue
                }
                if isDeletion {
                    cookies.remove(CookieStorage.Key(cookie))
                } else {
                    cookies.insert(cookie, limits: limits)
                }
            }
        }
    }

    /// Adds `cookie` as it is (one read back from a store of your own), replacing the cookie of the same name,
    /// domain and path, within the jar's limits; an expired cookie removes that one instead.
    ///
    /// A cookie that no server could have set is refused and the jar left as it was: a name that is not an RFC 6265
    /// token, a value that is not cookie-octets (optionally in one pair of double quotes: no space, `"`, `,`, `;`,
    /// `\`, control character or non-ASCII byte), or more than 4096 bytes of name and value. A value holding `;`
    /// would otherwise add cookies of its own to the `Cookie` field (`theme=light; admin=true`). Percent-encode such a
    /// value (or Base64 it) before inserting it.
    ///
    /// - Returns: `false` when the cookie was refused.
    @discardableResult
    public func insert(_ cookie: Cookie) -> Bool {
        guard Self.isWellFormed(cookie) else { return false }
        state.withLock { cookies in
            if cookie.isExpired(at: Date()) {
                cookies.remove(CookieStorage.Key(cookie))
            } else {
                cookies.insert(cookie, limits: limits)
            }
        }
        return true
    }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// Writes the cookies (session cookies included) to `file` as JSON, readable and writable by the owner only,
    /// replacing the file at once (a reader never sees half a jar). A server's cookie whose value is not cookie-octets
    /// (a quoted value with a space, say: kept and sent back for this run) is not written, as loading would refuse it.
    ///
    /// - Throws: ``ParleyError/Kind/invalidRequest`` when the file cannot be written.
    public func save(to file: URL) throws(ParleyError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            // What loading would refuse (a server's value outside cookie-octets) is not written.
            data = try encoder.encode(SavedJar(cookies: cookies.filter(Self.isWellFormed)))
        } catch {
            throw ParleyError(.encoding, "The cookie jar could not be encoded: \(error).", underlying: error)
        }
        try PrivateFile.write(data, to: file)
    }

    // MARK: - RFC 6265, section 5.3

    /// The cookie `setCookie` makes for a response from `origin`, and whether it deletes one (an expiry in the past);
    /// `nil` when it must be ignored.
    static func cookie(from setCookie: SetCookie, origin: Target, now: Date) -> (Cookie, isDeletion: Bool)? {
        // RFC 6265, section 5.2: as user agents take a server's cookies (no control character; no `;` can be in one).
        guard CookieSyntax.isAcceptedFromServer(name: setCookie.name, value: setCookie.value) else { return nil }
        // RFC 6265bis: a Secure cookie only from a secure origin.
        if setCookie.secure && !origin.isSecure { return nil }
        // The name prefixes (RFC 6265bis, section 4.1.3): __Secure- needs Secure; __Host- also no Domain and Path=/.
        let lowered = setCookie.name.lowercased()
        if lowered.hasPrefix("__secure-") || lowered.hasPrefix("__host-") {
            guard setCookie.secure else { return nil }
            if lowered.hasPrefix("__host-"), setCookie.domain != nil || setCookie.path != "/" { return nil }
        }
        var expires: Date?
        if let maxAge = setCookie.maxAge {
            expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(min(maxAge, 400 * 86_400)))
        } else if let date = setCookie.expires {
            expires = min(date, now.addingTimeInterval(400 * 86_400))  // RFC 6265bis: at most 400 days
        }
        let domain: String
        let isHostOnly: Bool
        if let attribute = setCookie.domain, !attribute.isEmpty {
            if PublicSuffix.isPublicSuffix(attribute) {
                // A cookie for every site under a public suffix: only the host itself may be that suffix.
                guard attribute == origin.host else { return nil }
                (domain, isHostOnly) = (origin.host, true)
            } else {
                guard Self.domainMatches(origin.host, attribute, hostIsAddress: origin.isAddress) else { return nil }
                (domain, isHostOnly) = (attribute, false)
            }
        } else {
            (domain, isHostOnly) = (origin.host, true)
        }
        let path = setCookie.path ?? Self.defaultPath(origin.path)
        let cookie = Cookie(
            name: setCookie.name,
            value: setCookie.value,
            domain: domain,
            isHostOnly: isHostOnly,
            path: path,
            isSecure: setCookie.secure,
            isHTTPOnly: setCookie.httpOnly,
            expires: expires,
            created: now
        )
        return (cookie, cookie.isExpired(at: now))
    }

    /// Whether `cookie`'s name and value are ones a server may send (RFC 6265, section 4.1.1; see `CookieSyntax`).
    static func isWellFormed(_ cookie: Cookie) -> Bool {
        CookieSyntax.isWellFormed(name: cookie.name, value: cookie.value)
    }

    /// Whether `cookie` goes with a request to `target` (section 5.4).
    static func belongs(_ cookie: Cookie, to target: Target) -> Bool {
        let domainOK =
            cookie.isHostOnly
            ? target.host == cookie.domain : domainMatches(target.host, cookie.domain, hostIsAddress: target.isAddress)
        return domainOK && pathMatches(target.path, cookie.path) && (!cookie.isSecure || target.isSecure)
    }

    /// Section 5.1.3: `host` is `domain`, or a name under it (never an IP address).
    static func domainMatches(_ host: String, _ domain: String, hostIsAddress: Bool) -> Bool {
        if host == domain { return true }
        return !hostIsAddress && host.hasSuffix("." + domain)
    }

    /// Section 5.1.4: the request path is the cookie path, or below it.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// Section 5.1.4: the default path of a cookie set in answer to `requestPath`.
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"), slash != requestPath.startIndex else {
            return "/"
        }
        return String(requestPath[..<slash])
    }

    /// What the rules read of a request's URL: its host (lower case, without brackets or port), path and scheme.
    struct Target {
        let host: String
        let path: String
        let isSecure: Bool
        let isAddress: Bool

        init?(_ url: URL) {
            self.init(RequestTarget(url))
        }

        init?(_ target: RequestTarget) {
            let host = target.decodedHost.lowercased()
            guard !host.isEmpty else { return nil }
            self.host = host.hasSuffix(".") ? String(host.dropLast()) : host
            let path = PercentEncoding.decode(target.path) ?? String(target.path)
            self.path = path.isEmpty ? "/" : path
            isSecure = target.isSecure
            isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { UInt8($0) != nil }
        }

        /// The domains whose cookies may go to this host: the host, and (for a name, not an address) each domain
        /// above it (`a.b.test`, `b.test`, `test`).
        var domains: [String] {
            guard !isAddress else { return [host] }
            var domains = [host]
            var rest = host[...]
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                if !rest.isEmpty { domains.append(String(rest)) }
            }
            return domains
        }
    }

    /// The file format of ``save(to:)``.
    private struct SavedJar: Codable {
        var cookies: [Cookie]
    }
}
