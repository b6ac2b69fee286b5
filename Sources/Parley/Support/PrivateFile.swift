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
