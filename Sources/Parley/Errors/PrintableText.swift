/// Makes text from a server safe to put in an error message or a log line: every character that is not printable
/// is written as an escape, so a server cannot forge a log line (CR, LF), drive a terminal (ESC, C1 controls),
/// reorder what a reader sees (bidi overrides) or cut a message short (NUL).
///
/// Escaped: C0 controls (U+0000–U+001F, as `\0`, `\t`, `\n`, `\r` or `\u{1B}`), DEL (U+007F), C1 controls
/// (U+0080–U+009F), the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and
/// paragraph separators (U+2028, U+2029), all as `\u{…}`; bytes that are not UTF-8 as `\xFF`. Everything else,
/// backslashes included, is kept as it is.
package enum PrintableText {
    /// `text` with every character that is not printable escaped; with `keepingLineFeeds`, LF stays a line break
    /// (for messages that Parley writes on several lines, about local data such as a test fixture).
    package static func escaping(_ text: String, keepingLineFeeds: Bool = false) -> String {
        let mustEscape: (Unicode.Scalar) -> Bool = { needsEscape($0) && !(keepingLineFeeds && $0 == "\n") }
        guard text.unicodeScalars.contains(where: mustEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if mustEscape(scalar) { append(scalar, to: &result) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// `bytes` as text: UTF-8 with every character that is not printable escaped, and each byte that is not
    /// part of a UTF-8 character as `\xFF`.
    package static func escaping(bytes: some Collection<UInt8>) -> String {
        escapingCounted(bytes: bytes).text
    }

    /// ``escaping(bytes:)`` and how many bytes were not UTF-8.
    package static func escapingCounted(bytes: some Collection<UInt8>) -> (text: String, invalidBytes: Int) {
        if let text = String(validating: bytes, as: UTF8.self) { return (escaping(text), 0) }
        let bytes = Array(bytes)
        var invalidBytes = 0
        var result = ""
        result.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length =
                switch lead {
                case 0x00...0x7F: 1
                case 0xC2...0xDF: 2
                case 0xE0...0xEF: 3
                case 0xF0...0xF4: 4
                default: 0
                }
            if length > 0, index + length <= bytes.count,
                let character = String(validating: bytes[index..<(index + length)], as: UTF8.self)
            {
                for scalar in character.unicodeScalars { append(scalar, to: &result) }
                index += length
            } else {
                result += "\\x" + hex(lead)
                invalidBytes += 1
                index += 1
            }
        }
        return (result, invalidBytes)
    }

    /// Whether `scalar` must be escaped.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to result: inout String) {
        guard needsEscape(scalar) else {
            result.unicodeScalars.append(scalar)
            return
        }
        switch scalar.value {
        case 0x00: result += "\\0"
        case 0x09: result += "\\t"
        case 0x0A: result += "\\n"
        case 0x0D: result += "\\r"
        default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
