/// Any JSON value, for dynamic APIs and exploring unknown responses.
///
/// Integers that fit in `Int` stay exact (`.int`); other numbers are `.double`. `.int(1) == .double(1)`.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// How deeply arrays and objects may nest when decoding a `JSONValue`, unless the decoder's `userInfo`
    /// sets another limit under ``maximumDepthKey``: 512, Foundation's `JSONDecoder` limit on every platform.
    ///
    /// Decoding recurses once per level, so the limit also bounds the stack a hostile document can use with
    /// decoders that have no limit of their own. The levels counted are those of `JSONValue` arrays and objects
    /// (a `JSONValue` inside a type of yours starts at level 1).
    public static let defaultMaximumDepth = 512

    /// The `userInfo` key of a decoder that sets another nesting limit (an `Int`) than ``defaultMaximumDepth``:
    /// `decoder.userInfo[JSONValue.maximumDepthKey] = 64`. `JSONDecoder` refuses more than 512 levels whatever
    /// this says.
    public static let maximumDepthKey: CodingUserInfoKey = {
        guard let key = CodingUserInfoKey(rawValue: "Parley.JSONValue.maximumDepth") else {
            // swift-format-ignore
            preconditionFailure("CodingUserInfoKey(rawValue:) failed")  // SAFE: it accepts every string (the `?` is RawRepresentable's)
        }
        return key
    }()

    /// Decodes any JSON value.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when arrays and objects nest deeper than the limit (see
    ///   ``defaultMaximumDepth``), and the decoder's errors.
    public init(from decoder: any Decoder) throws {
        // Objects first, then arrays, then scalars. Each attempt that fails throws an error carrying the coding
        // path, which JSONDecoder builds in time growing with the depth; with the scalars tried first, every level
        // of a nested document failed four attempts, and 500 nested objects or arrays (2.5 KB from a peer) took
        // over a second to decode. Now an object's level fails none, an array's one. The depth is counted in a
        // task-local value, not read from the coding path, which would cost time growing with the depth again.
        if (try? decoder.container(keyedBy: MemberName.self)) != nil {
            let depth = try Self.nextDepth(decoder)
            self = .object(
                try Self.$decodingDepth.withValue(depth) { try decoder.singleValueContainer().decode([String: JSONValue].self) }
            )
            return
        }
        if (try? decoder.unkeyedContainer()) != nil {
            let depth = try Self.nextDepth(decoder)
            self = .array(
                try Self.$decodingDepth.withValue(depth) { try decoder.singleValueContainer().decode([JSONValue].self) }
            )
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else {
            self = .double(try container.decode(Double.self))
        }
    }

    /// How many arrays and objects of `JSONValue`s being decoded enclose the one being decoded now.
    @TaskLocal private static var decodingDepth = 0

    /// The depth of a container about to be decoded with `decoder`.
    /// - Throws: `DecodingError.dataCorrupted` when it is past the limit.
    private static func nextDepth(_ decoder: any Decoder) throws -> Int {
        let depth = decodingDepth + 1
        let limit = decoder.userInfo[maximumDepthKey] as? Int ?? defaultMaximumDepth
        guard depth <= limit else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: tooDeep(limit: limit))
            )
        }
        return depth
    }

    /// The debug description of a decoding error for a value nested deeper than `limit`.
    static func tooDeep(limit: Int) -> String {
        "\(tooDeepMarker) \(limit) levels of arrays and objects"
    }

    /// How ``tooDeep(limit:)`` starts, so the explanation of the error can recognize it.
    package static let tooDeepMarker = "JSON nested deeper than"

    /// Any member name, to ask whether a value is an object.
    private struct MemberName: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Numbers compare by value: `.int(1) == .double(1)`.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Double(exactly: a) == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    /// Hashes consistently with `==` (integral doubles hash like ints).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(Double(value))
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil`.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as `Int`, if it is integral.
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    /// A compact JSON-like rendering, for messages.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): String(reflecting: value)
        case .array(let value): "[" + value.map(\.description).joined(separator: ",") + "]"
        case .object(let value):
            "{" + value.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)):\($0.value)" }.joined(separator: ",")
                + "}"
        }
    }
}
