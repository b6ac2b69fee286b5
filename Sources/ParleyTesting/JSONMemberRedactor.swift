import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Replaces the values of chosen members of a JSON text, at any depth, leaving every other byte as it was.
///
/// A scanner, not a parser: a string followed by `:` is a member name; when its name (unescaped, lowercased) is
/// one of the keys, its value (a string, number, literal, object or array) is replaced by `"<redacted>"`. Text that
/// is not JSON comes out unchanged apart from such members; nothing is ever read out of bounds.
enum JSONMemberRedactor {
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":")

    /// `bytes` with the values of members named in `keys` (lowercased) replaced. Boundaries come from Parley's one
    /// JSON byte scanner (`JSONScanner`); a string or value that does not end runs to the end of the text.
    static func redact(_ bytes: [UInt8], keys: Set<String>) -> [UInt8] {
        bytes.withUnsafeBufferPointer { bytes in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                guard bytes[index] == quote else {
                    output.append(bytes[index])
                    index += 1
                    continue
                }
                let end = JSONScanner.stringEnd(bytes, from: index) ?? bytes.count
                output.append(contentsOf: bytes[index..<end])
                let next = JSONScanner.skipWhitespace(bytes, from: end)
                guard next < bytes.count, bytes[next] == colon,
                    keys.contains(name(ArraySlice(bytes[index..<end])).lowercased())
                else {
                    index = end
                    continue
                }
                let valueStart = JSONScanner.skipWhitespace(bytes, from: next + 1)
                output.append(contentsOf: bytes[end..<valueStart])
                output.append(contentsOf: "\"\(FixtureRedaction.placeholder)\"".utf8)
                index = JSONScanner.valueEnd(bytes, from: valueStart) ?? bytes.count
            }
            return output
        }
    }

    /// The member name of the string literal `literal` (quotes included), unescaped when it has escapes.
    private static func name(_ literal: ArraySlice<UInt8>) -> String {
        guard literal.contains(backslash) else { return String(decoding: literal.dropFirst().dropLast(), as: UTF8.self) }
        return (try? JSONDecoder().decode(String.self, from: Data(literal))) ?? String(decoding: literal, as: UTF8.self)
    }
}
