import Crypto
import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rules of RFC 9111 the cache applies (what may be stored, for how long, which variant answers a request), and
/// the answers it makes from what it stored.
extension HTTPCache {
    // MARK: - RFC 9111

    /// Section 3: whether `response` to `request` may be stored.
    func isStorable(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        guard response.status.code != 206, response.status.code != 304 else { return false }
        // An event stream or other never-ending answer is not read whole to be stored.
        if MediaType(of: response) == .eventStream { return false }
        let control = CacheControl(response.headerFields[values: .cacheControl])
        let requestControl = CacheControl(request.headerFields[values: .cacheControl])
        guard !control.noStore, !requestControl.noStore else { return false }
        guard !response.headerFields[values: .vary].contains(where: { $0.contains("*") }) else { return false }
        if isShared {
            if control.isPrivate { return false }
            if request.headerFields[.authorization] != nil, !control.isPublic, control.seconds("s-maxage") == nil,
                !control.mustRevalidate
            {
                return false
            }
        }
        let explicit =
            control.seconds("max-age") != nil || (isShared && control.seconds("s-maxage") != nil)
            || response.headerFields[.expires] != nil
        let validated = response.headerFields[.eTag] != nil || response.headerFields[.lastModified] != nil
        // Without freshness or a validator a stored response could never be used: not worth storing (nor reading
        // whole before the caller gets it).
        return (explicit || validated) && (explicit || Self.heuristicallyCacheable.contains(response.status.code))
    }

    /// RFC 9110, section 15.1: the statuses a cache may store without explicit freshness.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Section 4.2.1: how long `head` is fresh.
    func freshnessLifetime(_ head: HTTPResponse, control: CacheControl, cached: CachedResponse) -> TimeInterval {
        if isShared, let shared = control.seconds("s-maxage") { return TimeInterval(shared) }
        if let maxAge = control.seconds("max-age") { return TimeInterval(maxAge) }
        if let expiresText = head.headerFields[.expires] {
            guard let expires = HTTPDate.parse(expiresText) else { return 0 }  // an invalid Expires: already expired
            let date = head.headerFields[.date].flatMap(HTTPDate.parse) ?? cached.responseTime
            return max(0, expires.timeIntervalSince(date))
        }
        guard Self.heuristicallyCacheable.contains(cached.status),
            let modified = head.headerFields[.lastModified].flatMap(HTTPDate.parse)
        else { return 0 }
        let date = head.headerFields[.date].flatMap(HTTPDate.parse) ?? cached.responseTime
        return min(86_400, max(0, date.timeIntervalSince(modified) / 10))
    }

    /// Section 4.2.3: the age of `cached` now.
    static func currentAge(_ cached: CachedResponse, head: HTTPResponse, now: Date) -> TimeInterval {
        let date = head.headerFields[.date].flatMap(HTTPDate.parse) ?? cached.responseTime
        // An Age that is not a number is ignored; a huge one counts as 2^31 s (RFC 9111, section 1.2.2).
        let ageValue = head.headerFields[.age].flatMap(HeaderNumber.deltaSeconds).map(TimeInterval.init) ?? 0
        let apparentAge = max(0, cached.responseTime.timeIntervalSince(date))
        let responseDelay = max(0, cached.responseTime.timeIntervalSince(cached.requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(cached.responseTime))
    }

    /// Section 4.1: whether the request's fields named by `cached`'s `Vary` (and its credentials) match the stored
    /// ones; a credential is compared by its fingerprint.
    static func varies(_ cached: CachedResponse, matching request: HTTPRequest) -> Bool {
        cached.varied.allSatisfy { name, value in
            guard let fieldName = HTTPField.Name(name) else { return false }
            let current = Self.normalizedValue(request.headerFields[values: fieldName])
            guard let value, value.hasPrefix(fingerprintPrefix) else { return current == value }
            return current.map(fingerprint) == value
        }
    }

    /// The values of the request's fields named by `response`'s `Vary`, and of its credentials: every field of
    /// ``SensitiveFields/current`` (`Authorization`, `Cookie`, `X-API-Key`, what the auth middlewares added, …) counts
    /// as if the response varied on it, so that no user gets an answer stored for another (one client may call for
    /// several users: a backend passing each user's token). A credential is kept as a SHA-256 fingerprint, never as is
    /// (a ``DiskCacheStore`` writes the variant to disk).
    static func variedValues(_ response: HTTPResponse, request: HTTPRequest) -> [String: String?] {
        var varied: [String: String?] = [:]
        for value in response.headerFields[values: .vary] {
            for name in value.split(separator: ",").map({ $0.trimmingHTTPWhitespace().lowercased() }) where !name.isEmpty {
                guard let fieldName = HTTPField.Name(name) else { continue }
                varied[name] = .some(normalizedValue(request.headerFields[values: fieldName]))
            }
        }
        let credentials = SensitiveFields.current.headerFields.union([.authorization, .cookie])
        for name in credentials where name != .setCookie {
            varied[name.rawName.lowercased()] = .some(normalizedValue(request.headerFields[values: name]).map(fingerprint))
        }
        return varied
    }

    /// What marks a stored variant value as a credential's fingerprint.
    static let fingerprintPrefix = "sha256:"

    /// A credential's fingerprint: enough to tell two users apart, not to read the credential back.
    static func fingerprint(_ value: String) -> String {
        let digest = SHA256.hash(data: Array("parley-cache-credential:\(value)".utf8))
        return fingerprintPrefix + digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func normalizedValue(_ values: [String]) -> String? {
        values.isEmpty ? nil : values.map { $0.trimmingHTTPWhitespace() }.joined(separator: ", ")
    }

    // MARK: - Answers

    /// The answer from `cached`, its `Age` at most 2^31 s. No stored `Set-Cookie` goes with it (the cookie stage
    /// above would apply it to the jar again): only `settingCookies`, those of the origin's answer that let it be used
    /// (a 304's own).
    static func answer(
        _ cached: CachedResponse,
        head: HTTPResponse,
        age: TimeInterval,
        status: String,
        settingCookies: [String] = []
    ) -> (
        HTTPResponse, HTTPBody?
    ) {
        var response = head
        response.headerFields[.age] = String(min(Int(saturating: age), HeaderNumber.maxDeltaSeconds))
        response.headerFields[values: .setCookie] = settingCookies
        return (marked(response, status), HTTPBody(cached.body))
    }

    static func marked(_ response: HTTPResponse, _ status: String) -> HTTPResponse {
        var response = response
        response.headerFields.append(HTTPField(name: cacheStatus, value: "\(cacheName); \(status)"))
        return response
    }

    /// `only-if-cached` with nothing usable stored (section 5.2.1.7).
    static func gatewayTimeout() -> HTTPResponse {
        marked(HTTPResponse(status: .gatewayTimeout), "fwd=miss; detail=only-if-cached")
    }
}
