/// A day of the proleptic Gregorian calendar, and the one conversion between such a day and a count of days since
/// 1 January 1970 (Howard Hinnant's `days_from_civil` and `civil_from_days`): what the HTTP-date parser and formatter
/// and the cookie-date algorithm share.
package struct CalendarDay: Sendable, Hashable {
    /// The year (1970, 1994, …).
    package let year: Int
    /// The month, 1 (January) to 12.
    package let month: Int
    /// The day of the month, 1 to 31.
    package let day: Int

    /// The day, when it exists: a month from 1 to 12 and a day that the month has in `year` (no 31 February).
    package init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, year: year) else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// The day `days` days after 1 January 1970 (before it when negative).
    package init(daysSince1970 days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The days from 1 January 1970 to this day (negative before it).
    package var daysSince1970: Int {
        // Years start on 1 March, so that the leap day ends the year.
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day of the week, 0 (Sunday) to 6 (Saturday).
    package var weekday: Int {
        // 1 January 1970 was a Thursday.
        ((daysSince1970 + 4) % 7 + 7) % 7
    }

    /// The number of days of `month` (1-12) in `year`.
    package static func days(inMonth month: Int, year: Int) -> Int {
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

    /// The three-letter English names of the months, in calendar order, as dates on the wire write them.
    package static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The month (1-12) whose three-letter name `name` is, in any case.
    package static func month(named name: some Collection<UInt8>) -> Int? {
        guard name.count == 3 else { return nil }
        let lowered = name.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 0x20 : $0 }
        return monthNames.firstIndex { $0.lowercased().utf8.elementsEqual(lowered) }.map { $0 + 1 }
    }
}
