#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The cookie-date algorithm of RFC 6265 section 5.1.1, which reads the many date forms servers write in a cookie's
/// Expires: more lenient than an HTTP-date (``HTTPDate``), with which it shares the calendar (``CalendarDay``).
package enum CookieDate {
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
        guard year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            let day = CalendarDay(year: year, month: month, day: dayOfMonth)
        else { return nil }
        let seconds = day.daysSince1970 * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
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
        CalendarDay.month(named: token.prefix(3))
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
}
