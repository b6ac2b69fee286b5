#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Property checks for fuzz targets: a broken property aborts, which libFuzzer reports as a crash and saves the
/// input that caused it.
public enum FuzzCheck {
    /// Aborts with `message` unless `condition` holds.
    @inlinable
    public static func expect(
        _ condition: @autoclosure () -> Bool,
        _ message: @autoclosure () -> String,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        if !condition() { fail(message(), file: file, line: line) }
    }

    /// Prints what property broke and aborts the process.
    public static func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        let text = "\n=== PROPERTY VIOLATED at \(file):\(line): \(message)\n"
        var bytes = Array(text.utf8)
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            guard written > 0 else { break }
            bytes.removeFirst(written)
        }
        abort()
    }
}
