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
        let text = value.trimmingHTTPWhitespace()
        // A huge number of seconds is "a very long time", not an error.
        if let seconds = HeaderNumber.nonNegative(text) { return .seconds(seconds) }
        guard let seconds = HTTPDate.secondsSince1970(text, now: now) else { return nil }
        let wait = Double(seconds) - now.timeIntervalSince1970
        return wait > 0 ? .milliseconds(Int(saturating: (wait * 1000).rounded(.up))) : .zero
    }
}
