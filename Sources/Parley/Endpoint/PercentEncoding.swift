/// Percent-encoding of UTF-8 text for the parts of a URL Parley writes.
enum PercentEncoding {
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
    static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else if plusAsSpace, byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
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
