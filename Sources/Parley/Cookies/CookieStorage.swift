#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The cookies of a ``CookieJar``, indexed so that storing one costs about as much in a full jar as in an empty one:
/// by name, domain and path (the identity a cookie is replaced by), by domain (its limit, and the cookies a request
/// may get), and in the order they came in (the oldest go first). No operation that stores or removes one cookie
/// looks at every cookie.
struct CookieStorage: Sendable {
    /// What identifies a cookie: one set again with the same name, domain and path replaces it.
    struct Key: Hashable, Sendable {
        let name: String
        let domain: String
        let path: String

        init(_ cookie: Cookie) {
            (name, domain, path) = (cookie.name, cookie.domain, cookie.path)
        }
    }

    /// A cookie and its rank: the order in which it first came in (a replaced cookie keeps its rank).
    private struct Entry: Sendable {
        var cookie: Cookie
        let rank: UInt64
    }

    private var entries: [Key: Entry] = [:]
    /// Each domain's cookies, oldest first.
    private var byDomain: [String: [Key]] = [:]
    /// The Secure cookies of each name: what plain HTTP may neither replace nor shadow.
    private var secureByName: [String: Set<Key>] = [:]
    /// Every cookie's rank and key, oldest first from `head` on. A cookie removed leaves its line until the
    /// eviction passes it or the list is compacted.
    private var order: [(rank: UInt64, key: Key)] = []
    private var head = 0
    private var nextRank: UInt64 = 0

    /// The number of cookies (expired ones included until they are read past).
    var count: Int { entries.count }

    /// Stores `cookie`, replacing the one of the same name, domain and path (whose creation time and rank it keeps),
    /// then removes the oldest of its domain beyond `perDomain` and the oldest of all beyond `total`.
    mutating func insert(_ cookie: Cookie, limits: (total: Int, perDomain: Int)) {
        let key = Key(cookie)
        if let old = entries[key] {
            var cookie = cookie
            cookie.created = old.cookie.created
            entries[key] = Entry(cookie: cookie, rank: old.rank)
            if old.cookie.isSecure != cookie.isSecure { indexSecure(key, cookie.isSecure) }
            return
        }
        let rank = nextRank
        nextRank += 1
        entries[key] = Entry(cookie: cookie, rank: rank)
        byDomain[key.domain, default: []].append(key)
        if cookie.isSecure { indexSecure(key, true) }
        order.append((rank, key))
        while byDomain[key.domain, default: []].count > max(1, limits.perDomain), let oldest = byDomain[key.domain]?.first {
            remove(oldest)
        }
        while entries.count > max(1, limits.total), head < order.count {
            let (rank, oldest) = order[head]
            head += 1
            if entries[oldest]?.rank == rank { remove(oldest) }
        }
        compact()
    }

    /// Removes the cookie of `key`, if there is one.
    mutating func remove(_ key: Key) {
        guard let removed = entries.removeValue(forKey: key) else { return }
        if var keys = byDomain.removeValue(forKey: key.domain) {
            if let index = keys.firstIndex(of: key) { keys.remove(at: index) }
            if !keys.isEmpty { byDomain[key.domain] = keys }
        }
        if removed.cookie.isSecure { indexSecure(key, false) }
    }

    /// Removes every cookie.
    mutating func removeAll() {
        self = CookieStorage()
    }

    /// Every cookie not expired at `now`, oldest first; the expired ones are removed.
    mutating func all(removingExpiredAt now: Date) -> [Cookie] {
        let expired = entries.compactMap { $0.value.cookie.isExpired(at: now) ? $0.key : nil }
        for key in expired { remove(key) }
        return entries.values.sorted { $0.rank < $1.rank }.map(\.cookie)
    }

    /// The cookies of the given domains not expired at `now`, with their rank (lower is older); the expired ones of
    /// those domains are removed.
    mutating func cookies(inDomains domains: [String], removingExpiredAt now: Date) -> [(cookie: Cookie, rank: UInt64)] {
        var found: [(cookie: Cookie, rank: UInt64)] = []
        for domain in Set(domains) {
            for key in byDomain[domain] ?? [] {
                guard let entry = entries[key] else { continue }
                if entry.cookie.isExpired(at: now) {
                    remove(key)
                } else {
                    found.append((entry.cookie, entry.rank))
                }
            }
        }
        return found
    }

    /// The Secure cookies named `name`.
    func secureCookies(named name: String) -> [Cookie] {
        (secureByName[name] ?? []).compactMap { entries[$0]?.cookie }
    }

    private mutating func indexSecure(_ key: Key, _ isSecure: Bool) {
        if isSecure {
            secureByName[key.name, default: []].insert(key)
        } else if var keys = secureByName.removeValue(forKey: key.name) {
            keys.remove(key)
            if !keys.isEmpty { secureByName[key.name] = keys }
        }
    }

    /// Drops the lines of `order` the eviction has passed and those of removed cookies, once they outnumber the
    /// cookies: each line is dropped once, so the work stays proportional to the cookies stored.
    private mutating func compact() {
        guard order.count - entries.count > max(64, entries.count) else { return }
        order = order[head...].filter { entries[$0.key]?.rank == $0.rank }
        head = 0
    }
}
