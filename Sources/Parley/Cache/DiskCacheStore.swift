import Dispatch

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

/// Responses in files under a folder (readable by their owner only), kept between runs, bounded by their total size:
/// the least recently written go first. File work runs on a queue of its own, never on Swift's threads.
public final class DiskCacheStore: HTTPCacheStore {
    /// The folder.
    public let folder: URL
    /// The most bytes the folder's files take.
    public let maxSize: Int
    private let queue = DispatchQueue(label: "parley.cache.disk")

    /// A store in `folder` (made if missing), keeping at most `maxSize` bytes (256 MiB by default).
    public init(folder: URL, maxSize: Int = 256 * 1024 * 1024) {
        self.folder = folder
        self.maxSize = max(0, maxSize)
    }

    /// The responses stored under `key`.
    public func responses(for key: String) async -> [CachedResponse] {
        await onQueue { [self] in
            let file = self.file(for: key)
            // Checked on the open file, not the path: a link to a pipe or a huge file is a miss, never read.
            guard let data = try? PrivateFile.read(file.path, limit: self.maxSize, what: "The cache file") else {
                return []
            }
            switch Self.decode(data, key: key) {
            case .responses(let responses): return responses
            case .otherKey: return []
            case .invalid:
                // A file changed behind the store's back (or cut short) is a miss, and goes.
                try? FileManager.default.removeItem(at: file)
                return []
            }
        }
    }

    /// What a file holds.
    enum Contents {
        /// The responses of the key asked for, each ``CachedResponse/isValid``.
        case responses([CachedResponse])
        /// The responses of another key whose file name is the same (a hash collision): left alone.
        case otherKey
        /// Not a file of the store, or one with an entry no response could have.
        case invalid
    }

    /// Decodes a file's `data` for `key`: a file is input like a server's bytes, validated whole.
    static func decode(_ data: Data, key: String) -> Contents {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let saved = try? decoder.decode(Saved.self, from: data), saved.responses.allSatisfy(\.isValid) else {
            return .invalid
        }
        return saved.key == key ? .responses(saved.responses) : .otherKey
    }

    /// Stores `responses` under `key`, then removes the oldest files beyond ``maxSize``.
    public func store(_ responses: [CachedResponse], for key: String) async {
        await onQueue { [self] in
            let file = self.file(for: key)
            guard !responses.isEmpty else {
                try? FileManager.default.removeItem(at: file)
                return
            }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            guard let data = try? encoder.encode(Saved(key: key, responses: responses)), data.count <= self.maxSize else {
                return
            }
            try? PrivateFile.write(data, to: file)
            self.evict()
        }
    }

    /// Removes every file of the store.
    public func removeAll() async {
        await onQueue { [self] in
            for file in self.files() { try? FileManager.default.removeItem(at: file.url) }
        }
    }

    /// The file of `key`: an FNV-1a hash of it (the key is kept inside, and checked on reading).
    private func file(for key: String) -> URL {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return folder.appendingPathComponent(String(hash, radix: 16) + ".parley-cache")
    }

    private func files() -> [(url: URL, size: Int, modified: Date)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".parley-cache") }.compactMap { name in
            let url = folder.appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            return (url, attributes[.size] as? Int ?? 0, attributes[.modificationDate] as? Date ?? .distantPast)
        }
    }

    private func evict() {
        var files = self.files().sorted { $0.modified < $1.modified }
        var total = files.reduce(0) { $0 + $1.size }
        while total > maxSize, !files.isEmpty {
            let oldest = files.removeFirst()
            try? FileManager.default.removeItem(at: oldest.url)
            total -= oldest.size
        }
    }

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }

    private struct Saved: Codable {
        var key: String
        var responses: [CachedResponse]
    }
}
