#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads a `Retry-After` field (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
enum RetryAfter {
    /// The wait the field asks for, measured from `now`; `nil` when the field is not a valid value. A date in
    /// the past asks for no wait.
    static func delay(_ value: String, now: Date = Date()) -> Duration? {
        let text = String(
            value.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        )
        // A huge number of seconds is "a very long time", not an error.
        if let seconds = HeaderNumber.nonNegative(text) { return .seconds(seconds) }
        guard let seconds = HTTPDateParser.secondsSince1970(text) else { return nil }
        let wait = Double(seconds) - now.timeIntervalSince1970
        return wait > 0 ? .milliseconds(Int(saturating: (wait * 1000).rounded(.up))) : .zero
    }
}

/// Parses the three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`).
enum HTTPDateParser {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970-01-01T00:00:00Z, or `nil` if `text` is none of the three forms.
    static func secondsSince1970(_ text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int?, month: Int?, year: Int?, time: String
        switch words.count {
        case 6 where words[5] == "GMT":  // IMF-fixdate: weekday, DD Mon YYYY HH:MM:SS GMT
            (day, month, year, time) = (number(words[1], digits: 2), monthNumber(words[2]), number(words[3], digits: 4), words[4])
        case 4 where words[3] == "GMT":  // RFC 850: weekday, DD-Mon-YY HH:MM:SS GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let twoDigitYear = number(parts[2], digits: 2) else { return nil }
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            (day, month, year, time) = (
                number(parts[0], digits: 2), monthNumber(parts[1]),
                2000 + twoDigitYear > 2070 ? 1900 + twoDigitYear : 2000 + twoDigitYear, words[2]
            )
        case 5:  // asctime: weekday Mon D HH:MM:SS YYYY
            (day, month, year, time) = (Int(words[2]), monthNumber(words[1]), number(words[4], digits: 4), words[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").map { number(String($0), digits: 2) }
        guard let day, let month, let year, (1...31).contains(day), clock.count == 3,
            let hour = clock[0], let minute = clock[1], let second = clock[2], hour < 24, minute < 60, second < 61
        else { return nil }
        return daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static func number(_ text: String, digits: Int) -> Int? {
        guard text.utf8.count == digits else { return nil }
        return Int(text)
    }

    private static func monthNumber(_ text: String) -> Int? {
        months.firstIndex(of: text.lowercased()).map { $0 + 1 }
    }

    /// Howard Hinnant's `days_from_civil`.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
