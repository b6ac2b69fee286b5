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

    /// `bytes` with the values of members named in `keys` (lowercased) replaced.
    static func redact(_ bytes: [UInt8], keys: Set<String>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == quote else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let end = stringEnd(bytes, from: index)
            output.append(contentsOf: bytes[index..<end])
            let next = skipWhitespace(bytes, from: end)
            guard next < bytes.count, bytes[next] == colon, keys.contains(name(bytes[index..<end]).lowercased()) else {
                index = end
                continue
            }
            let valueStart = skipWhitespace(bytes, from: next + 1)
            output.append(contentsOf: bytes[end..<valueStart])
            output.append(contentsOf: "\"\(FixtureRedaction.placeholder)\"".utf8)
            index = valueEnd(bytes, from: valueStart)
        }
        return output
    }

    /// The index after the string literal starting at `start` (a quote), or the end of the text.
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == backslash {
                index += 2
            } else if bytes[index] == quote {
                return index + 1
            } else {
                index += 1
            }
        }
        return bytes.count
    }

    /// The index after the value starting at `start`.
    private static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int {
        guard start < bytes.count else { return bytes.count }
        switch bytes[start] {
        case quote:
            return stringEnd(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case quote:
                    index = stringEnd(bytes, from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return bytes.count
        default:
            var index = start
            while index < bytes.count, !isWhitespace(bytes[index]), !",}]".utf8.contains(bytes[index]) { index += 1 }
            return index
        }
    }

    private static func skipWhitespace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The member name of the string literal `literal` (quotes included), unescaped when it has escapes.
    private static func name(_ literal: ArraySlice<UInt8>) -> String {
        guard literal.contains(backslash) else { return String(decoding: literal.dropFirst().dropLast(), as: UTF8.self) }
        return (try? JSONDecoder().decode(String.self, from: Data(literal))) ?? String(decoding: literal, as: UTF8.self)
    }
}
