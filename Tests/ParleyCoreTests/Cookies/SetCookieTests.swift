import Foundation
import Testing

@testable import Parley

@Suite("Set-Cookie parsing (RFC 6265 section 5.2) and cookie dates (5.1.1)")
struct SetCookieTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the example of RFC 9110 section 5.6.7.
    static let november1994 = Date(timeIntervalSince1970: 784_111_777)
    /// Wed, 09 Jun 2021 10:18:14 GMT.
    static let june2021 = Date(timeIntervalSince1970: 1_623_233_894)

    // MARK: Cookie dates

    @Test(
        "the three HTTP-date forms and odd ones give the exact instant",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", november1994),
            ("Sunday, 06-Nov-94 08:49:37 GMT", november1994),
            ("Sun Nov  6 08:49:37 1994", november1994),
            ("Wed, 09 Jun 2021 10:18:14 GMT", june2021),
            ("09-Jun-2021 10:18:14", june2021),
            ("JUNE 9 2021 10:18:14GMT", june2021),
            ("2021 jun 09 10:18:14", june2021),
            ("  Wed,   09   Jun   2021   10:18:14   GMT  ", june2021),
            ("Thu, 01 Jan 1970 00:00:00 GMT", Date(timeIntervalSince1970: 0)),
            ("Tue, 29 Feb 2000 00:00:00 GMT", Date(timeIntervalSince1970: 951_782_400)),
            ("Mon, 1 Jan 1601 0:0:0 GMT", Date(timeIntervalSince1970: -11_644_473_600)),
        ]
    )
    func dates(text: String, expected: Date) {
        #expect(CookieDate.parse(text) == expected)
    }

    @Test(
        "an impossible or incomplete date is nil",
        arguments: [
            "Sat, 31 Feb 2021 10:00:00 GMT",
            "Fri, 29 Feb 2019 10:00:00 GMT",
            "Thu, 29 Feb 1900 10:00:00 GMT",
            "Wed, 31 Jun 2021 10:00:00 GMT",
            "Wed, 09 Jun 2021 24:00:00 GMT",
            "Wed, 09 Jun 2021 10:60:00 GMT",
            "Wed, 09 Jun 2021 10:00:60 GMT",
            "Wed, 00 Jun 2021 10:00:00 GMT",
            "Wed, 32 Jun 2021 10:00:00 GMT",
            "Mon, 01 Jan 1600 00:00:00 GMT",
            "Wed, 009 Jun 2021 10:18:14 GMT",
            "Wed, 09 Jun 20210 10:18:14 GMT",
            "Wed, 09 Jun 2021 100:18:14 GMT",
            "Wed, 09 Jun 2021",
            "Wed, 09 2021 10:18:14 GMT",
            "2021-06-09 10:18:14",
            "",
            "garbage",
            "0",
        ]
    )
    func invalidDates(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test(
        "two-digit years: 70-99 are 19xx, 0-69 are 20xx",
        arguments: [
            ("01 Jan 70 00:00:00", Date(timeIntervalSince1970: 0)),
            ("01 Jan 99 00:00:00", Date(timeIntervalSince1970: 915_148_800)),
            ("01 Jan 00 00:00:00", Date(timeIntervalSince1970: 946_684_800)),
            ("01 Jan 69 00:00:00", Date(timeIntervalSince1970: 3_124_224_000)),
            ("31 Dec 69 23:59:59", Date(timeIntervalSince1970: 3_155_759_999)),
            ("01 Jan 069 00:00:00", Date(timeIntervalSince1970: 3_124_224_000)),
        ]
    )
    func twoDigitYears(text: String, expected: Date) {
        #expect(CookieDate.parse(text) == expected)
    }

    // MARK: Name and value

    @Test(
        "a cookie without = in its name-value pair, or with an empty name, is ignored",
        arguments: ["foo", "foo; Path=/", "; a=b", "", "=value", " =value", "\t= v; Path=/"]
    )
    func ignoredPairs(field: String) {
        #expect(SetCookie.parse(field) == nil)
    }

    @Test(
        "the value is kept as written, quotes included; the pair ends at the first ;",
        arguments: [
            (#"a="b c""#, #""b c""#),
            (#"a="""#, #""""#),
            (#"a="b;c""#, #""b"#),
            ("a=b=c", "b=c"),
            ("a=", ""),
            ("a=%20x%3B", "%20x%3B"),
        ]
    )
    func values(field: String, value: String) {
        #expect(SetCookie.parse(field) == SetCookie(name: "a", value: value))
    }

    @Test(
        "spaces and tabs around the name, the value and attributes are removed, and nothing else",
        arguments: [
            (" a = b ; Path = /x ; Secure ", SetCookie(name: "a", value: "b", path: "/x", secure: true)),
            ("\ta\t=\tb c\t;\tHttpOnly\t", SetCookie(name: "a", value: "b c", httpOnly: true)),
            ("a=b\u{A0}", SetCookie(name: "a", value: "b\u{A0}")),
            ("a=b\tc", SetCookie(name: "a", value: "b\tc")),
            ("a b=c d", SetCookie(name: "a b", value: "c d")),
        ]
    )
    func whitespace(field: String, expected: SetCookie) {
        #expect(SetCookie.parse(field) == expected)
    }

    @Test(
        "control characters in the name or value ignore the cookie",
        arguments: ["a=b\u{0}c", "a\u{1}=b", "a=b\u{7F}", "a=b\nc", "a=b\rc", "a\u{1F}b=c", "a=\u{8}"]
    )
    func controlCharacters(field: String) {
        #expect(SetCookie.parse(field) == nil)
    }

    @Test("a field of more than 4096 bytes is ignored, one of 4096 bytes is kept")
    func size() {
        #expect(SetCookie.parse("a=" + String(repeating: "x", count: 4_998)) == nil)
        #expect(SetCookie.parse("a=b; Path=/" + String(repeating: "x", count: 4_989)) == nil)
        #expect(SetCookie.parse("a=" + String(repeating: "é", count: 2_048)) == nil)
        let longest = String(repeating: "x", count: 4_094)
        #expect(SetCookie.parse("a=" + longest) == SetCookie(name: "a", value: longest))
    }

    // MARK: Attributes

    @Test(
        "attribute names are case-insensitive",
        arguments: [
            "a=b; PATH=/p; DOMAIN=example.com; SECURE; HTTPONLY; MAX-AGE=5; EXPIRES=Sun, 06 Nov 1994 08:49:37 GMT; "
                + "SAMESITE=Lax",
            "a=b; path=/p; domain=example.com; secure; httponly; max-age=5; expires=Sun, 06 Nov 1994 08:49:37 GMT; "
                + "samesite=Lax",
            "a=b; pAtH=/p; DoMaIn=example.com; sEcUrE; hTtPoNlY; mAx-AgE=5; eXpIrEs=Sun, 06 Nov 1994 08:49:37 GMT; "
                + "sAmEsItE=Lax",
        ]
    )
    func attributeCase(field: String) {
        let expected = SetCookie(
            name: "a",
            value: "b",
            expires: Self.november1994,
            maxAge: 5,
            domain: "example.com",
            path: "/p",
            secure: true,
            httpOnly: true,
            sameSite: "Lax"
        )
        #expect(SetCookie.parse(field) == expected)
    }

    @Test(
        "Domain loses a leading dot and is lowercased; an empty one is ignored",
        arguments: [
            ("a=b; Domain=.EXAMPLE.com", "example.com"),
            ("a=b; Domain=Sub.Example.COM", "sub.example.com"),
            ("a=b; Domain= .example.com ", "example.com"),
            ("a=b; Domain=", nil),
            ("a=b; Domain", nil),
            ("a=b; Domain=.", nil),
            ("a=b; Domain=one.com; Domain=", "one.com"),
            ("a=b; Domain=one.com; Domain=.", nil),
        ] as [(String, String?)]
    )
    func domain(field: String, domain: String?) {
        #expect(SetCookie.parse(field) == SetCookie(name: "a", value: "b", domain: domain))
    }

    @Test(
        "Path must start with /, else it stands for the default path (nil)",
        arguments: [
            ("a=b; Path=/a/b", "/a/b"),
            ("a=b; Path=/", "/"),
            ("a=b; Path=foo", nil),
            ("a=b; Path=", nil),
            ("a=b; Path", nil),
            ("a=b; Path=/one; Path=foo", nil),
        ] as [(String, String?)]
    )
    func path(field: String, path: String?) {
        #expect(SetCookie.parse(field) == SetCookie(name: "a", value: "b", path: path))
    }

    @Test(
        "Max-Age is an optional - then digits, clamped to Int; anything else is ignored",
        arguments: [
            ("Max-Age=-1", -1),
            ("Max-Age=0", 0),
            ("Max-Age=-0", 0),
            ("Max-Age= 42 ", 42),
            ("Max-Age=86400", 86_400),
            ("Max-Age=abc", nil),
            ("Max-Age=+5", nil),
            ("Max-Age=5s", nil),
            ("Max-Age=1 2", nil),
            ("Max-Age=--5", nil),
            ("Max-Age=-", nil),
            ("Max-Age=", nil),
            ("Max-Age=9223372036854775807", Int.max),
            ("Max-Age=99999999999999999999999999", Int.max),
            ("Max-Age=-9223372036854775808", Int.min),
            ("Max-Age=-99999999999999999999999999", Int.min),
            ("Max-Age=10; Max-Age=abc", 10),
        ] as [(String, Int?)]
    )
    func maxAge(attributes: String, maxAge: Int?) {
        #expect(SetCookie.parse("a=b; " + attributes) == SetCookie(name: "a", value: "b", maxAge: maxAge))
    }

    @Test(
        "an unparseable Expires is ignored",
        arguments: [
            ("Expires=never", nil),
            ("Expires=", nil),
            ("Expires=Sat, 31 Feb 2021 10:00:00 GMT", nil),
            ("Expires=Sun, 06 Nov 1994 08:49:37 GMT; Expires=never", november1994),
            ("Expires=Sun, 06-Nov-94 08:49:37 GMT", november1994),
        ] as [(String, Date?)]
    )
    func expires(attributes: String, expires: Date?) {
        #expect(SetCookie.parse("a=b; " + attributes) == SetCookie(name: "a", value: "b", expires: expires))
    }

    @Test(
        "the last attribute of a name wins",
        arguments: [
            ("Path=/one; Path=/two", SetCookie(name: "a", value: "b", path: "/two")),
            ("Domain=one.com; Domain=two.com", SetCookie(name: "a", value: "b", domain: "two.com")),
            ("Max-Age=1; Max-Age=2", SetCookie(name: "a", value: "b", maxAge: 2)),
            ("SameSite=Lax; SameSite=Strict", SetCookie(name: "a", value: "b", sameSite: "Strict")),
            (
                "Expires=Wed, 09 Jun 2021 10:18:14 GMT; Expires=Sun, 06 Nov 1994 08:49:37 GMT",
                SetCookie(name: "a", value: "b", expires: november1994)
            ),
        ]
    )
    func lastWins(attributes: String, expected: SetCookie) {
        #expect(SetCookie.parse("a=b; " + attributes) == expected)
    }

    @Test(
        "Secure and HttpOnly are set by their presence, whatever their value",
        arguments: [
            ("a=b; Secure", true, false),
            ("a=b; HttpOnly", false, true),
            ("a=b; Secure=false; HttpOnly=0", true, true),
            ("a=b; Secure=; HttpOnly=", true, true),
            ("a=b; Secureish; HttpOnlyish; Unknown=1", false, false),
            ("a=b", false, false),
        ]
    )
    func flags(field: String, secure: Bool, httpOnly: Bool) {
        #expect(SetCookie.parse(field) == SetCookie(name: "a", value: "b", secure: secure, httpOnly: httpOnly))
    }

    @Test(
        "SameSite is kept as written",
        arguments: [
            ("a=b; SameSite=Strict", "Strict"),
            ("a=b; SameSite=lax", "lax"),
            ("a=b; SameSite = None ", "None"),
            ("a=b", nil),
        ] as [(String, String?)]
    )
    func sameSite(field: String, sameSite: String?) {
        #expect(SetCookie.parse(field) == SetCookie(name: "a", value: "b", sameSite: sameSite))
    }
}
