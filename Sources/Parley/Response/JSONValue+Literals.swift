#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

// Literals: `let params: JSONValue = ["newHeads", ["includeTransactions": true], 7, 0.5, nil]`.

extension JSONValue: ExpressibleByNilLiteral {
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An integer.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A number that is not an integer literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object. A key written twice keeps its last value (as a JSON parser does), instead of trapping.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// Accessors and conversions.

extension JSONValue {
    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as `Double`, if this is a number (an `Int` is converted, possibly rounding past 2^53).
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The value at `path` of member names and array indices: `value[path: "result", "transactions", 0]`; `nil`
    /// when a step does not exist.
    public subscript(path path: JSONPathStep...) -> JSONValue? {
        var current: JSONValue? = self
        for step in path {
            switch step {
            case .key(let key): current = current?[key]
            case .index(let index): current = current?[index]
            }
        }
        return current
    }

    /// Any `Encodable` value as JSON (`JSONValue(encoding: params)`), through `encoder`.
    ///
    /// - Throws: The encoder's error, as it is.
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        let data = try encoder.encode(value)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// This value decoded as `type` (`try result.decode(as: Block.self)`), through `decoder`.
    ///
    /// - Throws: The decoder's `DecodingError`, whose coding path says where the value did not fit.
    public func decode<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: JSONEncoder().encode(self))
    }
}

/// A step of a path into a ``JSONValue`` (``JSONValue/subscript(path:)``): a member name or an array index, written
/// as a string or an integer literal.
public enum JSONPathStep: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// The member of an object with this name.
    case key(String)
    /// The element of an array at this index.
    case index(Int)

    /// A member name.
    public init(stringLiteral value: String) { self = .key(value) }

    /// An array index.
    public init(integerLiteral value: Int) { self = .index(value) }
}
