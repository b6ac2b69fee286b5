/// Query items parsed from a raw query string, in order.
///
/// Names and values are percent-decoded; `+` is kept as is (not turned into a space).
/// Empty segments (as in `a=1&&b=2`) are skipped; a segment without `=` has an empty value.
package struct QueryItems: Sendable {
    /// `(name, value)` pairs in the order they appear.
    let items: [(name: String, value: String)]

    /// Parses `rawQuery` (without the leading `?`).
    package init(rawQuery: Substring) {
        self.items = rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { segment in
            if let equals = segment.firstIndex(of: "=") {
                let name = segment[..<equals]
                let value = segment[segment.index(after: equals)...]
                return (Self.percentDecode(name), Self.percentDecode(value))
            }
            return (Self.percentDecode(segment), "")
        }
    }

    /// The first value for `name`.
    package func first(_ name: String) -> String? {
        self.items.first { $0.name == name }?.value
    }

    /// All values for `name`, in order.
    package func all(_ name: String) -> [String] {
        self.items.filter { $0.name == name }.map(\.value)
    }

    /// The first value for `name` as an integer, `nil` if absent; throws if present but invalid.
    package func int(_ name: String, in range: ClosedRange<Int>) throws(QueryError) -> Int? {
        guard let text = self.first(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            let bounds =
                range.upperBound == Int.max ? ">= \(range.lowerBound)" : "in \(range.lowerBound)...\(range.upperBound)"
            throw QueryError(message: "query parameter '\(name)' must be an integer \(bounds)")
        }
        return value
    }

    /// Decodes `%XX` escapes; malformed escapes are kept verbatim, invalid UTF-8 is repaired.
    package static func percentDecode(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = Self.hexValue(utf8[index + 1]), let low = Self.hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A query parameter that is present but invalid.
package struct QueryError: Error {
    /// Human-readable explanation, returned as `{"error": message}` with status 400.
    let message: String
}
