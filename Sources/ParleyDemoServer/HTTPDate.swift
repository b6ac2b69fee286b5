/// Formats IMF-fixdate timestamps (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) without Foundation.
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `seconds` since 1970-01-01T00:00:00Z (`seconds` >= 0).
    static func format(secondsSince1970 seconds: Int) -> String {
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        let (year, month, day) = self.civilDate(daysSince1970: days)
        let weekday = self.weekdays[days % 7]
        return "\(weekday), \(self.twoDigits(day)) \(self.months[month - 1]) \(year) "
            + "\(self.twoDigits(secondOfDay / 3600)):\(self.twoDigits(secondOfDay / 60 % 60)):\(self.twoDigits(secondOfDay % 60)) GMT"
    }

    /// Howard Hinnant's `civil_from_days` for non-negative day counts.
    private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
