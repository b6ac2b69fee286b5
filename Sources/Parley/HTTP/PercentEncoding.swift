/// Percent-encoding of UTF-8 text for the parts of a URL Parley writes, and the one percent-decoder (RFC 3986,
/// section 2.1).
package enum PercentEncoding {
    /// Which bytes pass through unencoded.
    struct Allowed {
        let table: [Bool]

        init(_ predicate: (UInt8) -> Bool) {
            table = (0...255).map { predicate(UInt8($0)) }
        }

        @inline(__always) func contains(_ byte: UInt8) -> Bool { table[Int(byte)] }

        static func isUnreserved(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                return true
            default:
                return false
            }
        }

        static func isSubDelimiter(_ byte: UInt8) -> Bool {
            "!$&'()*+,;=".utf8.contains(byte)
        }

        /// RFC 3986 `pchar` without `%`: one path segment.
        static let segment = Allowed {
            isUnreserved($0) || isSubDelimiter($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "@")
        }
        /// Literal path text: `pchar`, `/`, and `%` (the author may have encoded by hand).
        static let pathLiteral = Allowed {
            segment.contains($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%")
        }
        /// Query names and values: unreserved only, so `+`, `&`, `=` and spaces are always encoded.
        static let queryComponent = Allowed { isUnreserved($0) }
    }

    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    static func append(_ text: String, allowed: Allowed, to output: inout String) {
        let utf8 = text.utf8
        if utf8.allSatisfy({ allowed.contains($0) }) {
            output.append(text)
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if allowed.contains(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        output.append(String(decoding: bytes, as: UTF8.self))
    }

    /// Appends one path segment. A segment made only of dots (`.` or `..`) is encoded too, so it can
    /// never be read as a relative reference.
    static func appendSegment(_ text: String, to output: inout String) {
        if !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) {
            output.append(String(repeating: "%2E", count: text.utf8.count))
        } else {
            append(text, allowed: .segment, to: &output)
        }
    }

    /// Decodes `%XX` escapes; returns nil when an escape is malformed or the result is not UTF-8.
    package static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        decodedBytes(text, plusAsSpace: plusAsSpace).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes `text` stands for, its `%XX` escapes decoded (and `+` read as a space with `plusAsSpace`). A malformed
    /// escape (a `%` not followed by two hexadecimal digits) makes the result nil, or, `keepingMalformed`, stays as
    /// written.
    package static func decodedBytes(
        _ text: Substring,
        plusAsSpace: Bool = false,
        keepingMalformed: Bool = false
    ) -> [UInt8]? {
        let utf8 = text.utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            if byte == UInt8(ascii: "%") {
                let high = index < utf8.endIndex ? hexValue(utf8[index]) : nil
                let lowIndex = high == nil ? index : utf8.index(after: index)
                if let high, lowIndex < utf8.endIndex, let low = hexValue(utf8[lowIndex]) {
                    bytes.append(high << 4 | low)
                    index = utf8.index(after: lowIndex)
                } else if keepingMalformed {
                    bytes.append(byte)
                } else {
                    return nil
                }
            } else if plusAsSpace, byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
