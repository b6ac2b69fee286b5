#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The one reader and writer of HTTP-dates (RFC 9110, section 5.6.7): `Date`, `Expires`, `Last-Modified`,
/// `Retry-After`, `If-Modified-Since`.
///
/// A recipient reads all three forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). Runs of spaces are read as one (the
/// RFC asks recipients to be robust); numbers are ASCII digits of the lengths the grammar gives, the day must exist
/// in its month, and the zone must be `GMT`. A cookie's `Expires` is read by the more lenient cookie-date algorithm
/// instead (``CookieDate``).
package enum HTTPDate {
    /// The instant `text` names, or `nil` when it is none of the three forms.
    package static func parse(_ text: String) -> Date? {
        secondsSince1970(text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Seconds since 1970-01-01T00:00:00Z of the date `text` names, or `nil` when it is none of the three forms.
    /// `now` places an RFC 850 two-digit year: one that would be more than 50 years after `now` is in the century
    /// before.
    package static func secondsSince1970(_ text: some StringProtocol, now: Date = Date()) -> Int? {
        let words = Substring(text).utf8.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ",") })
        let day: Int?
        let month: Int?
        let year: Int?
        let time: Substring.UTF8View
        switch words.count {
        case 6 where words[5].elementsEqual("GMT".utf8):  // IMF-fixdate: day-name, DD Mon YYYY HH:MM:SS GMT
            (day, month, year, time) = (
                number(words[1], 2...2), CalendarDay.month(named: words[2]), number(words[3], 4...4), words[4]
            )
        case 4 where words[3].elementsEqual("GMT".utf8):  // RFC 850: day-name-l, DD-Mon-YY HH:MM:SS GMT
            let parts = words[1].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard parts.count == 3, let twoDigitYear = number(parts[2], 2...2) else { return nil }
            (day, month, year, time) = (
                number(parts[0], 2...2), CalendarDay.month(named: parts[1]), fullYear(twoDigitYear, now: now), words[2]
            )
        case 5:  // asctime: day-name Mon D HH:MM:SS YYYY (the day padded with a space, or two digits)
            (day, month, year, time) = (
                number(words[2], 1...2), CalendarDay.month(named: words[1]), number(words[4], 4...4), words[3]
            )
        default:
            return nil
        }
        let clock = time.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { number($0, 2...2) }
        guard let day, let month, let year, let date = CalendarDay(year: year, month: month, day: day),
            clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
            hour < 24, minute < 60, second <= 60  // 60: a leap second
        else { return nil }
        return date.daysSince1970 * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The IMF-fixdate of `seconds` since 1970-01-01T00:00:00Z: the form a sender writes.
    package static func format(secondsSince1970 seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let date = CalendarDay(daysSince1970: days)
        let weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][date.weekday]
        return "\(weekday), \(twoDigits(date.day)) \(CalendarDay.monthNames[date.month - 1]) \(date.year) "
            + "\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    /// The value of `text` when it is ASCII digits only, as many as `lengths` allows.
    private static func number(_ text: some Collection<UInt8>, _ lengths: ClosedRange<Int>) -> Int? {
        guard lengths.contains(text.count) else { return nil }
        var value = 0
        for byte in text {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The year an RFC 850 two-digit year names: the one with those last two digits that is at most 50 years after
    /// `now`'s (RFC 9110, section 5.6.7), and the latest such.
    private static func fullYear(_ twoDigits: Int, now: Date) -> Int {
        let days = Int(saturating: (now.timeIntervalSince1970 / 86_400).rounded(.down))
        let currentYear = CalendarDay(daysSince1970: days).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 } else if year + 100 <= currentYear + 50 { year += 100 }
        return year
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
