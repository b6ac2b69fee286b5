import Parley

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
                return (Self.lenientlyDecoded(name), Self.lenientlyDecoded(value))
            }
            return (Self.lenientlyDecoded(segment), "")
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

    /// Decodes `%XX` escapes as a lenient server does: a malformed escape is kept as written, invalid UTF-8 is
    /// repaired (Parley's own decoder, which refuses both, does the decoding).
    package static func lenientlyDecoded(_ text: Substring) -> String {
        String(decoding: PercentEncoding.decodedBytes(text, keepingMalformed: true) ?? Array(text.utf8), as: UTF8.self)
    }
}

/// A query parameter that is present but invalid.
package struct QueryError: Error {
    /// Human-readable explanation, returned as `{"error": message}` with status 400.
    let message: String
}
