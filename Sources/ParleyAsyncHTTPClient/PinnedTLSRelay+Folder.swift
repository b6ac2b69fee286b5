import Parley

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

/// The folder of the relay's sockets, and their names.
extension PinnedTLSRelay {
    /// A new folder for the sockets, that only this user can enter.
    static func makeFolder() throws -> String {
        // A socket's path holds at most 107 bytes: a long TMPDIR (macOS's are) falls back to /tmp.
        let base =
            ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty || $0.utf8.count > 64 ? nil : $0 } ?? "/tmp"
        var template =
            Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast()) + Array("parley-pins-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ParleyError(
                .transport,
                "Parley could not make a folder for its pinned-connection sockets in \(base) (errno \(errno))."
            )
        }
        return String(cString: made)
    }

    static func removeFolder(_ path: String) {
        guard let directory = opendir(path) else { return }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".sock") { unlink(path + "/" + name) }
        }
        closedir(directory)
        rmdir(path)
    }

    /// `text` with every byte but letters, digits, `-`, `.` and `_` percent-encoded (a socket path as a URL host).
    static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return encoded
    }
}
