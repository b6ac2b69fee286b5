import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The results an ``MCPClient`` keeps for as long as the server says they stay good (`ttlMs`, stateless era):
/// lists, reads, prompts, completions and `server/discover`. Off by default (``MCPClient/Configuration/resultCache``).
///
/// One client is one authorization context, so results the server scopes `"private"` are kept like `"public"` ones;
/// the cache is the client's own and never shared. It holds at most ``Limits/maxEntries`` results, the oldest
/// dropped first, each for at most ``Limits/maxAge`` whatever the server says.
public final class MCPResultCache: Sendable {
    /// How much the cache keeps.
    public struct Limits: Sendable, Hashable {
        /// The most results kept.
        public var maxEntries: Int
        /// The longest a result is kept, whatever its `ttlMs`.
        public var maxAge: Duration

        /// Limits: 256 results, an hour each at most, by default.
        public init(maxEntries: Int = 256, maxAge: Duration = .seconds(3600)) {
            self.maxEntries = max(maxEntries, 1)
            self.maxAge = maxAge
        }
    }

    private struct Entry {
        let value: any Sendable
        let expiry: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var order: [String] = []
    }

    /// The limits.
    public let limits: Limits
    private let state = LockedState(State())

    /// A cache within `limits`.
    public init(limits: Limits) {
        self.limits = limits
    }

    /// The methods whose results are kept.
    static let cacheable: Set<String> = [
        "server/discover", "tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list",
        "prompts/get", "completion/complete",
    ]

    /// The key of a call of `method` with `params`, or `nil` when its results are not kept.
    static func key(_ method: String, _ params: JSONValue) -> String? {
        guard cacheable.contains(method) else { return nil }
        var members = params.objectValue ?? [:]
        members["_meta"] = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(JSONValue.object(members)) else { return nil }
        return method + " " + String(decoding: data, as: UTF8.self)
    }

    /// The result kept for `key`, if it is still good.
    func value<Value: Sendable>(for key: String) -> Value? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            guard entry.expiry > now else {
                state.entries[key] = nil
                state.order.removeAll { $0 == key }
                return nil
            }
            return entry.value as? Value
        }
    }

    /// Keeps `value` for `ttl` (at most ``Limits/maxAge``).
    func store(_ value: some Sendable, for key: String, ttl: Duration) {
        let expiry = ContinuousClock.now + min(ttl, limits.maxAge)
        state.withLock { state in
            if state.entries.updateValue(Entry(value: value, expiry: expiry), forKey: key) == nil { state.order.append(key) }
            while state.order.count > limits.maxEntries {
                state.entries[state.order.removeFirst()] = nil
            }
        }
    }

    /// Forgets every result.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// How many results are kept.
    public var count: Int { state.withLock { $0.entries.count } }
}
