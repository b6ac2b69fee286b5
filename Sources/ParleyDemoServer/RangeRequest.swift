import Parley

/// A `Range` request header evaluated against a body of known size (RFC 9110 §14.2).
///
/// Only a single range in the `bytes` unit is honoured: a malformed header, another unit or a
/// list of several ranges is treated as if there were no `Range` header at all.
enum RangeRequest: Equatable, Sendable {
    /// No usable range: serve the whole body with 200.
    case whole
    /// One satisfiable range (inclusive offsets, already clamped to the body): serve it with 206.
    case partial(ClosedRange<Int>)
    /// A well-formed range that selects no byte of the body: answer 416.
    case unsatisfiable

    /// Evaluates `header` (the `Range` field value, if any) for a body of `size` bytes.
    init(header: String?, size: Int) {
        guard let header, let spec = Self.byteRangeSpec(header) else {
            self = .whole
            return
        }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .whole
            return
        }
        let firstText = parts[0].trimmingHTTPWhitespace()
        let lastText = parts[1].trimmingHTTPWhitespace()
        switch (Self.number(firstText), Self.number(lastText)) {
        case (nil, let suffix?) where firstText.isEmpty:
            // `-N`: the last N bytes.
            guard suffix > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .partial(max(0, size - suffix)...(size - 1))
        case (let first?, nil) where lastText.isEmpty:
            // `A-`: from A to the end.
            self = first < size ? .partial(first...(size - 1)) : .unsatisfiable
        case (let first?, let last?):
            guard first <= last else {
                self = .whole  // invalid range-spec: the header is ignored
                return
            }
            self = first < size ? .partial(first...min(last, size - 1)) : .unsatisfiable
        default:
            self = .whole
        }
    }

    /// Whether an `If-Range` value (absent: always) lets a range be served: it must equal the
    /// current strong `etag` exactly (a weak validator never matches) or the `lastModified` date.
    static func ifRangeAllows(_ ifRange: String?, etag: String, lastModified: String) -> Bool {
        guard let ifRange else { return true }
        let value = ifRange[...].trimmingHTTPWhitespace()
        if value.hasPrefix("W/") { return false }
        return value == etag || value == lastModified
    }

    /// The part after `bytes=` (unit matched case-insensitively) if it holds exactly one range.
    private static func byteRangeSpec(_ header: String) -> Substring? {
        let value = header[...].trimmingHTTPWhitespace()
        guard let equals = value.firstIndex(of: "=") else { return nil }
        guard value[..<equals].trimmingHTTPWhitespace().lowercased() == "bytes" else { return nil }
        let spec = value[value.index(after: equals)...]
        return spec.contains(",") ? nil : spec
    }

    /// Parses ASCII digits, saturating at `Int.max`; `nil` if empty or not all digits.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? Int.max : sum
        }
        return value
    }
}
