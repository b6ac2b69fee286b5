/// RFC 3986 character classes and percent-decoding, written out independently of Parley's encoder.
enum URIRules {
    static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }

    /// `pchar` without `pct-encoded`: unreserved, sub-delims, `:` and `@`.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || Array("!$&'()*+,;=:@".utf8).contains(byte)
    }

    static func isUpperHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte)
    }

    /// Whether `text` is made of bytes `allowed` and `%XX` escapes with two upper-case hex digits.
    static func isEncoded(_ text: some StringProtocol, allowing allowed: (UInt8) -> Bool) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25 {
                guard index + 2 < bytes.count, isUpperHex(bytes[index + 1]), isUpperHex(bytes[index + 2]) else { return false }
                index += 3
            } else {
                guard allowed(bytes[index]) else { return false }
                index += 1
            }
        }
        return true
    }

    /// The bytes `text` percent-decodes to, or `nil` when an escape is malformed.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25 {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// Whether a server that percent-decodes a path before resolving dot segments would read one in `path`: a
    /// segment that decodes to `.` or `..` without being written so.
    static func hasEncodedDotSegment(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            guard segment != ".", segment != "..", let decoded = decode(segment) else { return false }
            return decoded == [0x2E] || decoded == [0x2E, 0x2E]
        }
    }
}
