/// A set of acceptable HTTP status codes, written as ranges and single codes.
///
/// ```swift
/// let codes: StatusCodes = [200...299, 304...304]
/// let ok = StatusCodes.successful.contains(204)   // true
/// ```
public struct StatusCodes: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The ranges, as given.
    public var ranges: [ClosedRange<Int>]

    /// Codes from ranges.
    public init(_ ranges: [ClosedRange<Int>]) {
        self.ranges = ranges
    }

    /// Codes from an array literal of ranges.
    public init(arrayLiteral elements: ClosedRange<Int>...) {
        self.ranges = elements
    }

    /// Single codes.
    public static func codes(_ codes: Int...) -> StatusCodes {
        StatusCodes(codes.map { $0...$0 })
    }

    /// 200…299, the default.
    public static let successful: StatusCodes = [200...299]

    /// Every status code: validation by status is off.
    public static let any: StatusCodes = [0...999]

    /// Whether `code` is acceptable.
    @inline(__always) public func contains(_ code: Int) -> Bool {
        for range in ranges where range.contains(code) { return true }
        return false
    }

    /// "200…299, 304".
    public var description: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)…\($0.upperBound)" }
            .joined(separator: ", ")
    }
}
