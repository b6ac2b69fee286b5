/// The one reader of the numbers a server sends in header fields (`Age`, `Cache-Control`'s `max-age` and its
/// siblings, `Retry-After`'s delay-seconds): a plain decimal integer, read saturating, so that no value, however
/// long, overflows or traps.
package enum HeaderNumber {
    /// RFC 9111, section 1.2.2: a delta-seconds value (or a calculation on one) beyond what a cache can represent
    /// counts as 2^31 seconds (68 years).
    package static let maxDeltaSeconds = 2_147_483_648

    /// The value of `text`: ASCII digits only, with spaces and tabs allowed around them; `nil` for anything else (a
    /// sign, a fraction, an empty text). A value above `limit` is `limit`.
    package static func nonNegative(_ text: some StringProtocol, saturatingAt limit: Int = .max) -> Int? {
        let limit = max(0, limit)
        let bytes = Substring(text).utf8.trimmingHTTPWhitespace()
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            guard value < limit else { continue }  // saturated: the rest must still be digits
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow || carried ? limit : min(sum, limit)
        }
        return value
    }

    /// A delta-seconds value (RFC 9111, section 1.2.2): ``nonNegative(_:saturatingAt:)`` up to ``maxDeltaSeconds``.
    package static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        nonNegative(text, saturatingAt: maxDeltaSeconds)
    }
}

extension Int {
    /// `value` rounded towards zero and clamped to `Int`'s range: `nan` is 0, the infinities the extremes. The one
    /// conversion of a computed `Double` (an age, a wait) to an integer, where `Int(_:)` would trap.
    package init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9_223_372_036_854_775_807.0 {  // 2^63, the first Double above Int.max
            self = .max
        } else if value <= -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}
