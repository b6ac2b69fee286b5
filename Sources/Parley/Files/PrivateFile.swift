import CParleySystem

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files that hold secrets (cookie jars, sessions, cached answers): created readable and writable by their owner only
/// from the first byte (`open` with mode 0600, never a wider mode narrowed afterwards), and replaced at once (a new
/// file renamed over the old one, so a reader never sees half of it), in a folder made 0700 when missing; and read
/// back bounded (``read(_:limit:what:)``: checked on the open file, never more than the limit read).
package enum PrivateFile {
    /// Writes `data` to `file`, replacing it.
    package static func write(_ data: Data, to file: URL) throws(ParleyError) {
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw ParleyError(.invalidRequest, "The folder \(folder.path) could not be made: \(error).", underlying: error)
        }
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp").path
        let descriptor = POSIXFile.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        guard descriptor >= 0 else {
            throw ParleyError(.invalidRequest, "\(temporary) could not be created: \(POSIXFile.describe(errno)).")
        }
        let failure = data.withUnsafeBytes { POSIXFile.write(descriptor, $0) }
        POSIXFile.close(descriptor)
        let renamed = failure == 0 ? POSIXFile.rename(temporary, to: file.path) : failure
        guard renamed == 0 else {
            POSIXFile.remove(temporary)
            throw ParleyError(.invalidRequest, "\(file.path) could not be written: \(POSIXFile.describe(renamed)).")
        }
    }
}

extension PrivateFile {
    /// The bytes of the file at `path`, or `nil` when there is none, read without trusting the path: the file is
    /// opened first, then checked on the open descriptor, so that a symbolic link (which may point to a regular file
    /// of the right size: it is followed) cannot show one file's size and have another read. What is not a regular
    /// file (a directory, a pipe, a device) or holds more than `limit` bytes is refused without a byte of it read; at
    /// most `limit + 1` bytes are ever read, so a file that grows meanwhile is refused too.
    ///
    /// Blocking: call it from a thread of the caller's (a synchronous API) or a dispatch queue of its own (as
    /// `DiskCacheStore` does), never from a Swift concurrency task.
    ///
    /// - Parameter what: How the file is named in an error (`"The cookie file"`).
    /// - Throws: ``ParleyError/Kind/invalidRequest`` naming the file and why it was not read.
    package static func read(_ path: String, limit: Int, what: String) throws(ParleyError) -> Data? {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It changes nothing for a regular
        // file, the only kind read.
        let descriptor = POSIXFile.open(path, flags: O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw ParleyError(.invalidRequest, "\(what) \(path) could not be opened: \(POSIXFile.describe(code)).")
        }
        defer { POSIXFile.close(descriptor) }
        var status = parley_file_status()
        guard parley_fstatus(descriptor, &status) == 0 else {
            throw ParleyError(.invalidRequest, "\(what) \(path) could not be inspected: \(POSIXFile.describe(errno)).")
        }
        guard status.isRegular != 0 else {
            throw ParleyError(
                .invalidRequest,
                "\(what) \(path) is not a regular file (a directory, a pipe or a device); it was not read."
            )
        }
        let limit = min(max(0, limit), Int.max - 1)  // one byte more is read: no overflow for a limit of Int.max
        guard status.size <= Int64(limit) else {
            throw tooLarge(what, path, size: "\(status.size) bytes", limit: limit)
        }
        // Up to one byte more than the limit, to see a file that grew since fstat.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.size) + 1)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let result = chunk.withUnsafeMutableBytes { POSIXFile.read(descriptor, into: $0.baseAddress, count: wanted) }
            if result < 0 {
                throw ParleyError(.invalidRequest, "\(what) \(path) could not be read: \(POSIXFile.describe(errno)).")
            }
            if result == 0 { break }
            bytes += chunk[..<result]
        }
        guard bytes.count <= limit else { throw tooLarge(what, path, size: "more than \(limit) bytes", limit: limit) }
        return Data(bytes)
    }

    private static func tooLarge(_ what: String, _ path: String, size: String, limit: Int) -> ParleyError {
        ParleyError(
            .invalidRequest,
            "\(what) \(path) holds \(size), more than the \(limit) it may hold; it was not read. Remove it, or point to "
                + "the right file."
        )
    }
}
