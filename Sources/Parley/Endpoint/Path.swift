/// The path of an endpoint, percent-encoded as it goes on the wire.
///
/// Write it as a string literal with interpolations. Literal text is kept as written (characters that are not
/// legal in a path, such as spaces, `?` and `#`, are percent-encoded); every interpolated value is encoded
/// as exactly one path segment, so `"/files/\(name)"` with `name == "../etc/passwd"` becomes
/// `/files/..%2Fetc%2Fpasswd` and cannot escape its folder. A value that would make a whole segment read as
/// `.` or `..` (such as `name == ".."`) is encoded as `%2E%2E`, and the client refuses to send such a path
/// with ``ParleyError/Kind/invalidRequest``, because many servers decode `%2E` before resolving dot segments.
public struct Path: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The percent-encoded path, starting with `/` unless empty.
    public let encoded: String

    /// A path from already percent-encoded text, used as is.
    public init(percentEncoded: String) {
        self.encoded = percentEncoded
    }

    /// A path from literal text (illegal characters are encoded, `/` separates segments).
    public init(stringLiteral value: String) {
        var interpolation = StringInterpolation(literalCapacity: value.utf8.count, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.init(stringInterpolation: interpolation)
    }

    /// A path from an interpolated literal.
    public init(stringInterpolation: StringInterpolation) {
        self.encoded = stringInterpolation.encoded
    }

    /// A path built segment by segment; each segment is encoded whole.
    public init(segments: [String]) {
        var encoded = ""
        for segment in segments {
            encoded.append("/")
            PercentEncoding.appendSegment(segment, to: &encoded)
        }
        self.encoded = encoded
    }

    /// The percent-encoded path.
    public var description: String { encoded }

    /// A segment that decodes to `.` or `..` although its dots were percent-encoded (they came from an
    /// interpolated value), or `nil`. Dot segments written literally are the author's choice and are kept.
    var dotSegment: String? {
        var utf8 = encoded.utf8.makeIterator()
        var sawEncodedDot = false
        var previous: (UInt8, UInt8) = (0, 0)
        while let byte = utf8.next() {
            if previous.0 == UInt8(ascii: "%"), previous.1 == UInt8(ascii: "2"), byte | 0x20 == UInt8(ascii: "e") {
                sawEncodedDot = true
                break
            }
            previous = (previous.1, byte)
        }
        guard sawEncodedDot else { return nil }
        for segment in encoded.split(separator: "/") where segment.contains("%") {
            if let decoded = PercentEncoding.decode(segment), decoded == "." || decoded == ".." { return decoded }
        }
        return nil
    }

    /// Decodes one percent-encoded segment; `nil` when an escape is malformed or the bytes are not UTF-8.
    public static func decode(segment: some StringProtocol) -> String? {
        PercentEncoding.decode(Substring(segment))
    }

    /// Builds a ``Path`` from literal text and interpolated segments.
    public struct StringInterpolation: StringInterpolationProtocol {
        var encoded: String

        /// Reserves room for the path.
        public init(literalCapacity: Int, interpolationCount: Int) {
            encoded = ""
            encoded.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        /// Appends literal path text; `/` stays a separator.
        public mutating func appendLiteral(_ literal: String) {
            PercentEncoding.append(literal, allowed: .pathLiteral, to: &encoded)
        }

        /// Appends a value as (part of) one path segment: `/`, `?`, `#` and `%` are encoded.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            PercentEncoding.appendSegment(value.description, to: &encoded)
        }

        /// Appends text that is already percent-encoded, unchanged.
        public mutating func appendInterpolation(raw value: String) {
            encoded.append(value)
        }
    }
}
