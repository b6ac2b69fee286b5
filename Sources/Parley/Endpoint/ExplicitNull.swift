/// An optional property that encodes `nil` as `null`, where Swift's synthesized `Encodable` leaves the key out: for
/// protocols whose peers need the key present, such as LSP's `"processId": null`.
///
/// ```swift
/// struct InitializeParams: Codable, Sendable {
///     @ExplicitNull var processId: Int?      // {"processId":null,…} when nil
///     var rootUri: String?                   // left out when nil
/// }
/// ```
///
/// Decoding accepts the key with `null`, with a value, or missing (`nil`).
@propertyWrapper
public struct ExplicitNull<Value> {
    /// The value; `nil` is encoded as `null`.
    public var wrappedValue: Value?

    /// A property holding `wrappedValue`.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }
}

extension ExplicitNull: Sendable where Value: Sendable {}
extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}

extension ExplicitNull: Encodable where Value: Encodable {
    /// The value, or `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension ExplicitNull: Decodable where Value: Decodable {
    /// `nil` for `null`, otherwise the value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// An ``ExplicitNull`` property whose key is missing decodes as `nil`, as a plain optional does.
    public func decode<Value: Decodable>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws -> ExplicitNull<Value> {
        try decodeIfPresent(type, forKey: key) ?? ExplicitNull(wrappedValue: nil)
    }
}
