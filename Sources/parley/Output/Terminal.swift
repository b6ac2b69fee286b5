import Foundation
import Parley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's standard streams, written unbuffered, and whether they are terminals.
enum Terminal {
    /// Whether standard output is a terminal (not a pipe or a file).
    static var isOutputTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    /// Whether standard error is a terminal.
    static var isErrorTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes `text` to standard error at once.
    @Sendable static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Writes `text` to standard output at once, after anything `print` buffered.
    @Sendable static func writeOutput(_ text: String) {
        fflush(nil)
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Prints a response body: indented JSON (keys in the server's order) on a terminal (when it is JSON),
    /// otherwise exactly the bytes received.
    static func printBody(_ body: Data) {
        guard isOutputTerminal, !body.isEmpty else {
            FileHandle.standardOutput.write(body)
            return
        }
        if let indented = try? JSONFormatter(layout: .indented, colors: false).format(Array(body)) {
            FileHandle.standardOutput.write(Data(indented + [UInt8(ascii: "\n")]))
            return
        }
        FileHandle.standardOutput.write(body)
        if body.last != UInt8(ascii: "\n") { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }
}
