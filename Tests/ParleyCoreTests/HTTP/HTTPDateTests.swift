import Foundation
import Parley
import Testing

/// The one HTTP-date reader (RFC 9110, section 5.6.7) that `Retry-After` and the cache use, and its writer.
@Suite("HTTP-date: IMF-fixdate, RFC 850 and asctime")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the example of RFC 9110 section 5.6.7.
    static let november1994 = 784_111_777
    /// 1 January 2025, 00:00:00 GMT: the "now" that places RFC 850 two-digit years.
    static let now = Date(timeIntervalSince1970: 1_735_689_600)

    @Test(
        "the three forms give the same instant",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
            "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850
            "Sun Nov  6 08:49:37 1994",  // asctime
            "Sun Nov 06 08:49:37 1994",
            "  Sun,  06 NOV 1994 08:49:37 GMT ",
        ]
    )
    func threeForms(text: String) {
        #expect(HTTPDate.secondsSince1970(text, now: Self.now) == Self.november1994)
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: TimeInterval(Self.november1994)))
    }

    @Test("an RFC 850 two-digit year more than 50 years ahead is in the century before")
    func twoDigitYears() {
        let year2074 = HTTPDate.secondsSince1970("Monday, 01-Jan-74 00:00:00 GMT", now: Self.now)
        let year1976 = HTTPDate.secondsSince1970("Thursday, 01-Jan-76 00:00:00 GMT", now: Self.now)
        #expect(year2074 == 3_281_990_400)
        #expect(year1976 == 189_302_400)
    }

    @Test(
        "dates of the calendar's edges",
        arguments: [
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Tue, 29 Feb 2000 00:00:00 GMT", 951_782_400),
            ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
            ("Sat, 01 Jan 1601 00:00:00 GMT", -11_644_473_600),
            ("Tue, 30 Jun 2015 23:59:60 GMT", 1_435_708_800),  // a leap second
        ]
    )
    func edges(text: String, seconds: Int) {
        #expect(HTTPDate.secondsSince1970(text) == seconds)
    }

    @Test(
        "anything else is no date",
        arguments: [
            "", "0", "-1", "120", "tomorrow",
            "Sun, 06 Nov 1994 08:49:37 UTC",  // only GMT
            "Sun, 06 Nov 1994 08:49:37",
            "Sun, 6 Nov 1994 08:49:37 GMT",  // IMF-fixdate's day has two digits
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, +6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sat, 31 Feb 2021 10:00:00 GMT",  // no such day
            "Fri, 29 Feb 2019 10:00:00 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sun Nov 123 08:49:37 1994",
            "Sun Nov  6 08:49:37 94",
            "09-Jun-2021 10:18:14",  // a cookie date, not an HTTP-date
        ]
    )
    func invalid(text: String) {
        #expect(HTTPDate.secondsSince1970(text, now: Self.now) == nil)
    }

    @Test("the writer writes IMF-fixdate, which the reader reads back")
    func format() {
        #expect(HTTPDate.format(secondsSince1970: Self.november1994) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSince1970: -1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        for seconds in [0, 951_782_400, 1_623_233_894, 4_102_444_799] {
            #expect(HTTPDate.secondsSince1970(HTTPDate.format(secondsSince1970: seconds)) == seconds)
        }
    }

    @Test("days since 1970 and back agree, leap days included")
    func calendarDays() {
        #expect(CalendarDay(year: 1970, month: 1, day: 1)?.daysSince1970 == 0)
        #expect(CalendarDay(year: 2000, month: 3, day: 1)?.daysSince1970 == 11_017)
        #expect(CalendarDay(year: 2021, month: 2, day: 29) == nil)
        #expect(CalendarDay(year: 2020, month: 13, day: 1) == nil)
        for days in stride(from: -200_000, through: 200_000, by: 997) {
            let day = CalendarDay(daysSince1970: days)
            #expect(CalendarDay(year: day.year, month: day.month, day: day.day)?.daysSince1970 == days)
        }
    }
}
