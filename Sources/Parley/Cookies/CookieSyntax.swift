import HTTPTypes

/// The bytes a cookie may hold, in one place: what the `Set-Cookie` parser refuses outright, and what a
/// `CookieJar` keeps, whichever way a cookie comes in (a server's `Set-Cookie`, `CookieJar.insert(_:)`, a saved
/// jar's file).
///
/// A cookie inserted or read from a saved jar must be one that RFC 6265 section 4.1.1 allows a server to send: a name that is a token, a value of
/// cookie-octets (`%x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E`: no space, `"`, `,`, `;`, `\`, control character or
/// non-ASCII byte), optionally in one pair of double quotes, 4096 bytes in all. A `;` in a value would put cookies of
/// its own on the wire (`theme=light; admin=true`), a comma splits cookies for some servers, and a control character
/// would end the header line. A server's own cookies are parsed as user agents parse them (section 5.2):
/// ``isAcceptedFromServer(name:value:)``.
package enum CookieSyntax {
    /// The most bytes of a cookie's name and value together (RFC 6265 section 6.1).
    package static let maximumLength = 4096

    /// Whether `name` and `value` make a cookie the jar may keep and send (see the type's description).
    package static func isWellFormed(name: String, value: String) -> Bool {
        name.utf8.count + value.utf8.count <= maximumLength && isName(name) && isValue(value)
    }

    /// Whether a server's `Set-Cookie` name and value make a cookie the jar keeps: RFC 6265 section 5.2, as user agents
    /// parse them: a token name, and a value without control characters (a `;` cannot be in one: it ends the value),
    /// 4096 bytes in all. Servers send values outside cookie-octets (Python's `http.cookies` quotes `"d e"`); they go
    /// back to that server as they came, but the jar does not save them (``isWellFormed(name:value:)`` decides what a
    /// file and `CookieJar.insert(_:)` may hold).
    package static func isAcceptedFromServer(name: String, value: String) -> Bool {
        name.utf8.count + value.utf8.count <= maximumLength && isName(name) && !value.utf8.contains(where: isControl)
    }

    /// Whether `name` is an RFC 9110 token (the `token` of RFC 6265's `cookie-name`).
    package static func isName(_ name: String) -> Bool {
        HTTPField.Name(name) != nil
    }

    /// Whether `value` is an RFC 6265 `cookie-value`: cookie-octets, or cookie-octets in one pair of double quotes.
    package static func isValue(_ value: String) -> Bool {
        var octets = value.utf8[...]
        if octets.first == UInt8(ascii: "\""), octets.count >= 2, octets.last == UInt8(ascii: "\"") {
            octets = octets.dropFirst().dropLast()
        }
        return octets.allSatisfy(isCookieOctet)
    }

    /// RFC 6265 `cookie-octet`: `%x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E`.
    package static func isCookieOctet(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23...0x2B, 0x2D...0x3A, 0x3C...0x5B, 0x5D...0x7E: true
        default: false
        }
    }

    /// Whether `byte` is a control character other than the horizontal tab (0x00-0x08, 0x0A-0x1F, 0x7F): one in a
    /// `Set-Cookie` field's name or value makes the parser ignore the cookie (RFC 6265bis, section 5.6).
    package static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }
}
