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
/// file renamed over the old one, so a reader never sees half of it), in a folder made 0700 when missing.
package enum PrivateFile {
    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #elseif canImport(Musl)
            Musl.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }

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
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ParleyError(.invalidRequest, "\(temporary) could not be created: \(String(cString: strerror(errno))).")
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        close(descriptor)
        guard failure == 0, rename(temporary, file.path) == 0 else {
            let reason = String(cString: strerror(failure != 0 ? failure : errno))
            unlink(temporary)
            throw ParleyError(.invalidRequest, "\(file.path) could not be written: \(reason).")
        }
    }
}
