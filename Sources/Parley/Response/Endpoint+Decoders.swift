#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The default decoder exists only for the response types it can decode: `Decodable` ones (`String`, `Data`,
// `Optional` and ``JSONValue`` among them) and `Void`. An endpoint whose `Response` is anything else has no `decoder`
// unless it names one, so it does not compile ("type … does not conform to protocol 'Endpoint'").

extension Endpoint where Response: Decodable, Decoder == DefaultResponseDecoder<Response> {
    /// The default decoder for a `Decodable` response (see ``DefaultResponseDecoder``).
    public var decoder: DefaultResponseDecoder<Response> { DefaultResponseDecoder() }
}

extension Endpoint where Response == Void, Decoder == DefaultResponseDecoder<Response> {
    /// The default decoder for a `Void` response: the body is read and dropped.
    public var decoder: DefaultResponseDecoder<Response> { DefaultResponseDecoder() }
}

/// The decoder an endpoint gets when it names none, chosen by its `Response` type:
///
/// | `Response` | decoding |
/// |---|---|
/// | `Void` | the body is read and dropped, never buffered |
/// | `String` | UTF-8 text; a body that is not UTF-8 fails |
/// | `Data` | the raw bytes |
/// | `Optional<T: Decodable>` | `nil` exactly when the body is empty, otherwise JSON |
/// | any other `Decodable` (including ``JSONValue``) | JSON, with the client's `JSONDecoder` |
///
/// It exists only for these types: an endpoint whose `Response` is any other type must name its ``Endpoint/decoder``,
/// or it does not compile.
///
/// A generic endpoint, whose `Response` is a type parameter, cannot have it chosen by the compiler: it names
/// ``chosenAtRuntime``, which applies the same table to the concrete type of each call:
///
/// ```swift
/// struct Fetch<Response: Sendable>: Endpoint {
///     var path: Path
///     var decoder: DefaultResponseDecoder<Response> { .chosenAtRuntime }
/// }
/// ```
///
/// `Fetch<User>`, `Fetch<Void>`, `Fetch<String>` and `Fetch<User?>` then decode as their non-generic equivalents;
/// a call whose `Response` is none of the table's types fails with a ``ParleyError/Kind/decoding`` error that names
/// the type (the compiler cannot catch it, as it does for a non-generic endpoint).
public struct DefaultResponseDecoder<Value: Sendable>: ResponseDecoder {
    /// The default decoder of a `Decodable` value.
    public init() where Value: Decodable {}

    /// The default decoder of `Void`: the body is read and dropped.
    public init() where Value == Void {}

    /// The default decoder of a `Value` known only at run time (a generic endpoint's `Response`), decoding it as the
    /// table above says; a `Value` that is none of the table's types fails each call with a
    /// ``ParleyError/Kind/decoding`` error, before the body is read.
    public static var chosenAtRuntime: DefaultResponseDecoder<Value> { DefaultResponseDecoder(anyType: ()) }

    private init(anyType: Void) {}

    /// Decodes according to `Value` (see the table above).
    public func decode(_ response: ResponseBody) async throws -> Value {
        if Value.self == Void.self {
            try await response.discard()
            return try cast(())
        }
        if Value.self == String.self {
            return try cast(try await StringResponseDecoder().decode(response))
        }
        if Value.self == Data.self {
            return try cast(try await response.data())
        }
        if let optional = Value.self as? any OptionalResponse.Type {
            return try cast(try await Self.decodeOptional(optional, response))
        }
        if let decodable = Value.self as? any Decodable.Type {
            let data = try await response.data()
            guard !data.isEmpty else { throw EmptyBodyError(expected: Value.self) }
            do {
                return try Self.decodeJSON(decodable, data, response.jsonDecoder)
            } catch let error as DecodingError {
                throw BodyDecodingError(underlying: error, body: data)
            }
        }
        // Only through ``chosenAtRuntime``: the other initializers exist only for `Decodable` values and `Void`.
        throw UnsupportedResponseType(type: Value.self)
    }

    private static func decodeOptional<O: OptionalResponse>(_ type: O.Type, _ response: ResponseBody) async throws -> O {
        let data = try await response.data()
        guard !data.isEmpty else { return O.wrapping(nil) }
        do {
            return O.wrapping(try response.jsonDecoder.decode(O.Wrapped.self, from: data))
        } catch {
            throw BodyDecodingError(underlying: error, body: data)
        }
    }

    /// Decodes `T` (which is `Value`, opened from an existential) without boxing the result in `Any`.
    private static func decodeJSON<T: Decodable>(_ type: T.Type, _ data: Data, _ decoder: JSONDecoder) throws -> Value {
        let value = try decoder.decode(type, from: data)
        guard let typed = value as? Value else { throw UnsupportedResponseType(type: Value.self) }
        return typed
    }

    private func cast(_ value: Any) throws -> Value {
        guard let value = value as? Value else { throw UnsupportedResponseType(type: Value.self) }
        return value
    }
}

/// `Optional`, seen as a response type: lets an endpoint's `Response` be `T?` for a `Decodable` `T`.
public protocol OptionalResponse: Decodable {
    /// The type inside the optional.
    associatedtype Wrapped: Decodable
    /// Wraps a value.
    static func wrapping(_ value: Wrapped?) -> Self
}

extension Optional: OptionalResponse where Wrapped: Decodable {
    /// Wraps a value.
    public static func wrapping(_ value: Wrapped?) -> Self { value }
}

/// Thrown when the default decoder meets a `Response` type it cannot decode.
struct UnsupportedResponseType: Error, CustomStringConvertible {
    let type: Any.Type
    var description: String {
        "its response type \(type) is not Void, String, Data, Optional or Decodable, which the default decoder handles; "
            + "give the endpoint a `decoder` that produces it"
    }
}

extension DefaultResponseDecoder {
    /// Every response type but `Void` (whose body is dropped unread) is read whole.
    public static var readsWholeBody: Bool { Value.self != Void.self }
}
