/// The one whitespace rule of HTTP field values (RFC 9110, section 5.6.3: `OWS = *( SP / HTAB )`), which RFC 6265's
/// `WSP` for cookies matches: a space or a horizontal tab, never a line break.
extension UInt8 {
    /// Whether this byte is HTTP whitespace: a space or a horizontal tab.
    package var isHTTPWhitespace: Bool { self == UInt8(ascii: " ") || self == UInt8(ascii: "\t") }
}

extension Character {
    /// Whether this character is HTTP whitespace: a space or a horizontal tab.
    package var isHTTPWhitespace: Bool { self == " " || self == "\t" }
}

extension StringProtocol {
    /// The text without leading and trailing HTTP whitespace (spaces and horizontal tabs).
    package func trimmingHTTPWhitespace() -> Substring {
        Substring(Substring(self).utf8.trimmingHTTPWhitespace())
    }
}

extension Substring.UTF8View {
    /// The bytes without leading and trailing HTTP whitespace (spaces and horizontal tabs).
    package func trimmingHTTPWhitespace() -> Substring.UTF8View {
        guard let first = firstIndex(where: { !$0.isHTTPWhitespace }), let last = lastIndex(where: { !$0.isHTTPWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
