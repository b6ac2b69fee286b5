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
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
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
            attributeName = Self.trimmed(attribute[..<equals])
            attributeValue = Self.trimmed(attribute[attribute.index(after: equals)...])
        } else {
            attributeName = Self.trimmed(attribute)
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

    /// `text` without leading and trailing WSP (space and horizontal tab).
    private static func trimmed(_ text: Substring.UTF8View) -> Substring.UTF8View {
        guard let first = text.firstIndex(where: { !isWhitespace($0) }),
            let last = text.lastIndex(where: { !isWhitespace($0) })
        else { return text[text.endIndex...] }
        return text[first...last]
    }

    /// Whether `byte` is WSP: a space or a horizontal tab.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
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

/// The cookie-date algorithm of RFC 6265 section 5.1.1, which reads the many date forms servers write in Expires.
package enum CookieDate {
    /// The month names the month production matches, in calendar order, in lower case.
    private static let months: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }

    /// The date `string` denotes (UTC), or nil when the algorithm fails: a missing time, day of month, month or year,
    /// a field out of range (day 1-31, year at least 1601, hour at most 23, minute and second at most 59), or a date
    /// that does not exist such as 31 February.
    package static func parse(_ string: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?
        // Each date-token is tried against the productions in order; the first one not found yet that matches wins.
        for token in string.utf8.split(whereSeparator: isDelimiter).map(Array.init) {
            if time == nil, let found = self.time(token) {
                time = found
            } else if dayOfMonth == nil, let found = number(token, lengths: 1...2) {
                dayOfMonth = found
            } else if month == nil, let found = self.month(token) {
                month = found
            } else if year == nil, let found = number(token, lengths: 2...4) {
                year = found
            }
        }
        guard let time, let dayOfMonth, let month, var year else { return nil }
        if (70...99).contains(year) {
            year += 1900
        } else if (0...69).contains(year) {
            year += 2000
        }
        guard (1...31).contains(dayOfMonth), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            dayOfMonth <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: dayOfMonth)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Whether `byte` is a delimiter: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    /// The time production, `1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT [ non-digit *OCTET ]`: hour, minute and second.
    private static func time(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        var position = 0
        guard let hour = digits(token, at: &position, lengths: 1...2), colon(token, at: &position),
            let minute = digits(token, at: &position, lengths: 1...2), colon(token, at: &position),
            let second = digits(token, at: &position, lengths: 1...2)
        else { return nil }
        return (hour, minute, second)
    }

    /// The day-of-month (`lengths` 1...2) or year (2...4) production, `n*mDIGIT [ non-digit *OCTET ]`: the number
    /// the token starts with.
    private static func number(_ token: [UInt8], lengths: ClosedRange<Int>) -> Int? {
        var position = 0
        return digits(token, at: &position, lengths: lengths)
    }

    /// The month production: a month name in any case, then anything; the month's number (1-12).
    private static func month(_ token: [UInt8]) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 0x20 : $0 }
        guard let index = months.firstIndex(where: { $0.elementsEqual(prefix) }) else { return nil }
        return index + 1
    }

    /// Reads the run of digits at `position`, moving past it: its value when it has a length in `lengths`, so that
    /// what follows is the end of the token or a non-digit; nil otherwise. Reads at most one digit more than allowed,
    /// so a long run cannot overflow.
    private static func digits(_ token: [UInt8], at position: inout Int, lengths: ClosedRange<Int>) -> Int? {
        let start = position
        var value = 0
        while position < token.count, position - start <= lengths.upperBound,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(token[position])
        {
            value = value * 10 + Int(token[position] - UInt8(ascii: "0"))
            position += 1
        }
        return lengths.contains(position - start) ? value : nil
    }

    /// Moves past a ":" at `position`; false when there is none.
    private static func colon(_ token: [UInt8], at position: inout Int) -> Bool {
        guard position < token.count, token[position] == UInt8(ascii: ":") else { return false }
        position += 1
        return true
    }

    /// The number of days of `month` (1-12) in `year` of the proleptic Gregorian calendar.
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    /// Days from 1 January 1970 to the given date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`, for years from 1601).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        // Years start on 1 March, so that the leap day ends the year.
        let marchYear = month <= 2 ? year - 1 : year
        let era = marchYear / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
