#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// A cookie as a server sets it in one `Set-Cookie` header field, read leniently the way RFC 6265 section 5.2 tells a
/// user agent to read it.
///
/// Parsing only reads the field. Deciding whether and how to store the cookie (RFC 6265 section 5.3: the request's
/// host against ``domain``, the default path when ``path`` is nil, ``maxAge`` taking precedence over ``expires``) is
/// up to the caller.
package struct SetCookie: Sendable, Hashable {
    /// The cookie's name, without leading and trailing spaces and tabs.
    package var name: String
    /// The cookie's value as written (quotes included), without leading and trailing spaces and tabs.
    package var value: String
    /// The Expires attribute, parsed with the cookie-date algorithm; nil when absent or unparseable (then ignored,
    /// per 5.2.1).
    package var expires: Date?
    /// The Max-Age attribute in seconds, when it is a valid delta (5.2.2: optional leading "-", then digits only;
    /// otherwise the attribute is ignored). Values beyond Int range clamp to Int.max / Int.min.
    package var maxAge: Int?
    /// The Domain attribute: leading "." removed, lowercased; nil when absent or empty (5.2.3).
    package var domain: String?
    /// The Path attribute; nil when absent, empty or not starting with "/" (5.2.4).
    package var path: String?
    /// Whether the Secure attribute is present (whatever its value, 5.2.5).
    package var secure: Bool
    /// Whether the HttpOnly attribute is present (whatever its value, 5.2.6).
    package var httpOnly: Bool
    /// The SameSite attribute's value as written (Strict, Lax, None), nil when absent.
    package var sameSite: String?

    /// A cookie with the given name, value and attributes.
    package init(
        name: String,
        value: String,
        expires: Date? = nil,
        maxAge: Int? = nil,
        domain: String? = nil,
        path: String? = nil,
        secure: Bool = false,
        httpOnly: Bool = false,
        sameSite: String? = nil
    ) {
        self.name = name
        self.value = value
        self.expires = expires
        self.maxAge = maxAge
        self.domain = domain
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// The longest field value kept, in bytes: RFC 6265 section 6.1 asks user agents to keep cookies of at least
    /// 4096 bytes, and a hostile server cannot make us keep more. The name-value pair is part of the field, so it
    /// is bounded too.
    private static let maximumLength = 4096

    /// Parses one field value; nil when the cookie must be ignored: no "=" in the name-value pair, an empty name, or a
    /// name-value pair or field of more than 4096 bytes (RFC 6265 section 6.1 limits; a hostile server cannot make us
    /// keep more). Later attributes of the same name win (5.3 step: "the last attribute"). Attribute names are
    /// case-insensitive. Whitespace is trimmed as 5.2 says (WSP = space and horizontal tab only). Control characters
    /// (0x00-0x08, 0x0A-0x1F, 0x7F) in the name or value make the cookie ignored (RFC 6265bis 5.6 step 2/3 behaviour).
    /// What a ``CookieJar`` then keeps is stricter (`CookieSyntax`): a name and value RFC 6265 section 4.1.1 allows.
    package static func parse(_ fieldValue: String) -> SetCookie? {
        guard fieldValue.utf8.count <= maximumLength else { return nil }
        // The name-value pair runs up to the first ";", each cookie-av up to the next one.
        let parts = fieldValue.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = pair[..<equals].trimmingHTTPWhitespace()
        let value = pair[pair.index(after: equals)...].trimmingHTTPWhitespace()
        guard !name.isEmpty, !name.contains(where: CookieSyntax.isControl), !value.contains(where: CookieSyntax.isControl)
        else { return nil }
        var cookie = SetCookie(name: String(Substring(name)), value: String(Substring(value)))
        for attribute in parts.dropFirst() {
            cookie.apply(attribute)
        }
        return cookie
    }

    /// Applies one cookie-av (the text between two ";"), as RFC 6265 sections 5.2.1 to 5.2.6 say; an attribute this
    /// parser does not know, or an invalid Expires, Max-Age or empty Domain, leaves the cookie as it is.
    private mutating func apply(_ attribute: Substring.UTF8View) {
        let attributeName: Substring.UTF8View
        let attributeValue: Substring.UTF8View
        if let equals = attribute.firstIndex(of: UInt8(ascii: "=")) {
            attributeName = attribute[..<equals].trimmingHTTPWhitespace()
            attributeValue = attribute[attribute.index(after: equals)...].trimmingHTTPWhitespace()
        } else {
            attributeName = attribute.trimmingHTTPWhitespace()
            attributeValue = attribute[attribute.endIndex...]
        }
        switch String(decoding: attributeName.map(Self.lowercased), as: UTF8.self) {
        case "expires":
            if let date = CookieDate.parse(String(Substring(attributeValue))) {
                expires = date
            }
        case "max-age":
            if let seconds = Self.deltaSeconds(attributeValue) {
                maxAge = seconds
            }
        case "domain":
            // 5.2.3: an empty value is ignored; a lone "." leaves an empty domain, which 5.3 treats as none.
            guard !attributeValue.isEmpty else { return }
            let withoutDot =
                attributeValue.first == UInt8(ascii: ".") ? attributeValue.dropFirst() : attributeValue
            domain = withoutDot.isEmpty ? nil : String(Substring(withoutDot)).lowercased()
        case "path":
            // 5.2.4: an invalid path is not ignored but stands for the default path, which the caller computes.
            path = attributeValue.first == UInt8(ascii: "/") ? String(Substring(attributeValue)) : nil
        case "secure":
            secure = true
        case "httponly":
            httpOnly = true
        case "samesite":
            sameSite = String(Substring(attributeValue))
        default:
            break
        }
    }

    /// The Max-Age value in seconds (5.2.2): an optional "-" and at least one digit, nothing else; nil otherwise.
    /// Beyond the range of Int it clamps to Int.max or Int.min.
    private static func deltaSeconds(_ text: Substring.UTF8View) -> Int? {
        let negative = text.first == UInt8(ascii: "-")
        let digits = negative ? text.dropFirst() : text
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        var magnitude = 0
        for byte in digits {
            let (times10, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            if overflowed || carried {
                return negative ? Int.min : Int.max
            }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    /// Whether `byte` is an ASCII digit.
    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `byte` in lower case when it is an ASCII upper-case letter, else `byte` unchanged.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte
    }
}
