extension SetCookie {
    /// The `Set-Cookie` field values of a field that a transport combined into one with commas (FoundationNetworking's
    /// `allHeaderFields` does): split before each comma that is followed by a cookie's `name=`, so that the comma of an
    /// `Expires` date (`Wed, 09 Jun 2021 …`) does not split. (A comma is not a legal cookie-octet, RFC 6265 section
    /// 4.1.1, so a value holding one was already broken.)
    package static func splitCombined(_ fieldValue: String) -> [String] {
        var values: [String] = []
        var start = fieldValue.startIndex
        var index = fieldValue.startIndex
        while let comma = fieldValue[index...].firstIndex(of: ",") {
            let after = fieldValue.index(after: comma)
            if startsCookie(fieldValue[after...]) {
                values.append(String(fieldValue[start..<comma]))
                start = after
            }
            index = after
        }
        values.append(String(fieldValue[start...]))
        return values.map { String($0.trimmingHTTPWhitespace()) }.filter { !$0.isEmpty }
    }

    /// Whether `text` starts (after spaces) with a token followed by `=`: a cookie's name-value pair.
    private static func startsCookie(_ text: Substring) -> Bool {
        var sawToken = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if sawToken { return false }
            case UInt8(ascii: "="):
                return sawToken
            case UInt8(ascii: ";"), UInt8(ascii: ","), UInt8(ascii: "\""), 0...0x1F, 0x7F:
                return false
            default:
                sawToken = true
            }
        }
        return false
    }
}
