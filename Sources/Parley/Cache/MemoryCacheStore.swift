/// Responses in memory, bounded by their total size: the least recently used go first.
public final class MemoryCacheStore: HTTPCacheStore {
    private struct Entry {
        var responses: [CachedResponse]
        var size: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var size = 0
        var clock: UInt64 = 0
    }

    /// The most bytes of bodies kept.
    public let maxSize: Int
    private let state = LockedState(State())

    /// A store keeping at most `maxSize` bytes of bodies (32 MiB by default).
    public init(maxSize: Int = 32 * 1024 * 1024) {
        self.maxSize = max(0, maxSize)
    }

    /// The responses stored under `key`.
    public func responses(for key: String) async -> [CachedResponse] {
        state.withLock { state in
            state.clock += 1
            state.entries[key]?.lastUse = state.clock
            return state.entries[key]?.responses ?? []
        }
    }

    /// Stores `responses` under `key`, dropping the least recently used keys beyond ``maxSize``.
    public func store(_ responses: [CachedResponse], for key: String) async {
        // Bodies, header fields and varied values all count.
        let size = responses.reduce(0) { total, response in
            total + response.body.count + 256 + response.fields.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count + 8 } }
                + response.varied.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.utf8.count ?? 0) + 16 }
        }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.size -= old.size }
            guard !responses.isEmpty, size <= maxSize else { return }
            state.clock += 1
            state.entries[key] = Entry(responses: responses, size: size, lastUse: state.clock)
            state.size += size
            while state.size > maxSize, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.size -= oldest.value.size
            }
        }
    }

    /// Removes everything.
    public func removeAll() async {
        state.withLock { $0 = State() }
    }
}
