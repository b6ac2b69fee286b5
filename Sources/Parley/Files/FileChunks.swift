import CParleySystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular file read as a sequence of byte chunks, reopened on every iteration (so a body made from it can
/// be sent again by a retry), that fails instead of sending a different number of bytes than it declared.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    /// The file's path.
    let path: String
    /// The size the file had when it was chosen; every iteration reads exactly this many bytes or fails.
    let size: Int64
    /// Bytes per chunk.
    let chunkSize: Int

    /// Checks that `path` is a readable regular file and records its size. Nothing is read yet.
    init(path: String, chunkSize: Int = 256 * 1024) throws(ParleyError) {
        let descriptor = try Self.open(path)
        defer { close(descriptor) }
        self.path = path
        self.size = try Self.size(of: descriptor, path: path)
        self.chunkSize = chunkSize
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: self)
    }

    /// Reads the file chunk by chunk; the descriptor is closed at the end, on failure, or when the iterator goes.
    struct Iterator: AsyncIteratorProtocol {
        let chunks: FileChunks
        var reader: Reader?
        var offset: Int64 = 0
        var done = false

        init(chunks: FileChunks) { self.chunks = chunks }

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !done else { return nil }
            do {
                return try nextChunk()
            } catch {
                done = true
                reader = nil
                throw error
            }
        }

        private mutating func nextChunk() throws(ParleyError) -> ArraySlice<UInt8>? {
            if reader == nil {
                let descriptor = try FileChunks.open(chunks.path)
                reader = Reader(descriptor: descriptor)
                let size = try FileChunks.size(of: descriptor, path: chunks.path)
                guard size == chunks.size else { throw chunks.sizeChanged(found: "\(size) bytes") }
            }
            guard let reader else { return nil }
            let wanted = Int(Swift.min(Int64(chunks.chunkSize), chunks.size - offset))
            // One byte more than still expected at the end, to notice a file that grew.
            let capacity = Swift.max(wanted, 1)
            let chunk = try reader.read(upTo: capacity, path: chunks.path)
            if chunk.isEmpty {
                guard offset == chunks.size else { throw chunks.sizeChanged(found: "only \(offset) bytes") }
                done = true
                self.reader = nil
                return nil
            }
            offset += Int64(chunk.count)
            guard offset <= chunks.size else { throw chunks.sizeChanged(found: "more than \(chunks.size) bytes") }
            return chunk[...]
        }
    }

    /// Owns an open descriptor.
    final class Reader {
        let descriptor: Int32
        init(descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }

        /// Reads up to `count` bytes (fewer only at the end of the file); empty at the end.
        func read(upTo count: Int, path: String) throws(ParleyError) -> [UInt8] {
            var failure: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = 0
                while initialized < count {
                    let result = POSIXFile.read(
                        descriptor,
                        into: buffer.baseAddress.map { $0 + initialized },
                        count: count - initialized
                    )
                    if result < 0 {
                        failure = errno
                        return
                    }
                    if result == 0 { return }
                    initialized += result
                }
            }
            if failure != 0 {
                throw ParleyError(.transport, "Reading \(path) failed: \(FileChunks.describe(failure)).")
            }
            return bytes
        }
    }

    func sizeChanged(found: String) -> ParleyError {
        ParleyError(
            .invalidRequest,
            "The file \(path) changed while it was being sent: it had \(size) bytes when the request was made and now has "
                + "\(found). The request was aborted so that the server does not receive a mixed or truncated file; "
                + "send it again once the file is no longer being written."
        )
    }

    static func open(_ path: String) throws(ParleyError) -> Int32 {
        let descriptor = POSIXFile.open(path, flags: O_RDONLY)
        guard descriptor >= 0 else {
            let code = errno
            let advice =
                code == ENOENT
                ? "Check the path (relative paths are resolved against the current directory)."
                : "Check the file's permissions."
            throw ParleyError(
                .invalidRequest,
                "The file \(path) cannot be opened for sending: \(describe(code)). \(advice) Nothing was sent."
            )
        }
        return descriptor
    }

    static func size(of descriptor: Int32, path: String) throws(ParleyError) -> Int64 {
        var status = parley_file_status()
        guard parley_fstatus(descriptor, &status) == 0 else {
            throw ParleyError(.invalidRequest, "The file \(path) cannot be inspected: \(describe(errno)). Nothing was sent.")
        }
        guard status.isRegular != 0 else {
            throw ParleyError(
                .invalidRequest,
                "\(path) is not a regular file (a directory, device or pipe), so its length is unknown. Nothing was sent; "
                    + "stream other sources with RequestBody.stream(_:)."
            )
        }
        return status.size
    }

    static func describe(_ code: Int32) -> String { POSIXFile.describe(code) }
}
