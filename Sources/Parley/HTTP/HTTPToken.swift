/// The one `tchar` rule of HTTP (RFC 9110, section 5.6.2: `token = 1*tchar`), the characters of field names, methods,
/// auth schemes and parameter names.
extension UInt8 {
    /// Whether this byte may be part of an HTTP token: a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    package var isHTTPTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(self)
        }
    }
}
