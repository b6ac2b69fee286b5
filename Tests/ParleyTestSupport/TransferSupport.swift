import Crypto
import Foundation
import Parley
import Testing

/// A folder of its own under the temporary directory, removed by `remove()`.
struct ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(
            path: "parley-tests-\(UUID().uuidString)",
            directoryHint: .isDirectory
        )
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appending(path: name, directoryHint: .notDirectory) }

    /// The names in the folder, hidden ones included, sorted.
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? ["<unreadable folder>"]).sorted()
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The demo server's byte pattern: byte `i` is `i % 251`.
enum Pattern {
    /// The size of the large upload and download tests: 64 MiB, or `PARLEY_TRANSFER_TEST_MIB` MiB (scripts/test's
    /// ThreadSanitizer run uses 8).
    static let largeTransferSize = (ProcessInfo.processInfo.environment["PARLEY_TRANSFER_TEST_MIB"].flatMap(Int.init) ?? 64) << 20

    /// 1 MiB and one period of pattern bytes, made once: any chunk of up to 1 MiB is a slice of it. (Building
    /// pattern bytes one by one takes seconds per 64 MiB in a debug build, holding one of the two cooperative
    /// threads the whole suite shares.)
    private static let block: [UInt8] = (0..<((1 << 20) + 251)).map { UInt8($0 % 251) }
    private static let digests = LockedState<[Int: String]>([:])

    /// Pattern bytes `offset ..< offset + length`, `length` at most 1 MiB.
    static func chunk(at offset: Int, length: Int) -> ArraySlice<UInt8> {
        block[(offset % 251)..<(offset % 251 + length)]
    }

    /// Writes `count` pattern bytes to `url`, 1 MiB at a time.
    static func write(_ count: Int, to url: URL) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var offset = 0
        while offset < count {
            let length = min(1 << 20, count - offset)
            try handle.write(contentsOf: chunk(at: offset, length: length))
            offset += length
        }
    }

    /// The SHA-256 of the first `count` pattern bytes, as lowercase hex (computed once per count).
    static func sha256(_ count: Int) -> String {
        if let known = digests.withLock({ $0[count] }) { return known }
        var hasher = SHA256()
        var offset = 0
        while offset < count {
            let length = min(1 << 20, count - offset)
            chunk(at: offset, length: length).withUnsafeBytes { hasher.update(bufferPointer: $0) }
            offset += length
        }
        let digest = hex(hasher.finalize())
        digests.withLock { $0[count] = digest }
        return digest
    }
}

/// The SHA-256 of a file, as lowercase hex.
func sha256(of url: URL) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = SHA256()
    while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
        hasher.update(data: data)
    }
    return hex(hasher.finalize())
}

func hex(_ digest: SHA256.Digest) -> String {
    digest.map { String(format: "%02x", $0) }.joined()
}

/// Progress values seen, in order.
final class ProgressLog: Sendable {
    private let values = LockedState<[TransferProgress]>([])
    func record(_ progress: TransferProgress) { values.withLock { $0.append(progress) } }
    var all: [TransferProgress] { values.withLock { $0 } }

    /// Expects non-decreasing byte counts ending at `total`.
    func expectMonotonic(endingAt total: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        let all = self.all
        #expect(!all.isEmpty, sourceLocation: sourceLocation)
        for (previous, next) in zip(all, all.dropFirst()) {
            #expect(next.completedBytes >= previous.completedBytes, "\(previous) → \(next)", sourceLocation: sourceLocation)
        }
        #expect(all.last?.completedBytes == total, sourceLocation: sourceLocation)
        #expect(all.last?.totalBytes == total, sourceLocation: sourceLocation)
        #expect(all.last?.fractionCompleted == 1, sourceLocation: sourceLocation)
    }
}

/// What the demo server's `/upload` reports.
struct UploadReport: Decodable, Sendable {
    let bytes: Int
    let sha256: String
    let contentType: String?
    let contentLength: Int?
}

/// `POST /upload`.
struct Upload: Endpoint {
    typealias Response = UploadReport
    var method: HTTPRequest.Method { .post }
    var path: Path { "/upload" }
}

/// `GET /download?n=…` with the demo server's options (query items, and header fields that leave the URL as it is).
struct Download: Endpoint {
    typealias Response = Data
    var size: Int
    var options: [(String, String)] = []
    var headers: Headers = [:]
    var path: Path { "/download" }
    var query: Query {
        var query = Query()
        query.append("n", String(size))
        for (name, value) in options { query.append(name, value) }
        return query
    }
}
