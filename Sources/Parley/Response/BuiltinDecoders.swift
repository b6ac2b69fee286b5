#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Decodes a JSON body into a `Decodable` value, with the given or the client's `JSONDecoder`.
public struct JSONResponseDecoder<Value: Decodable & Sendable>: ResponseDecoder {
    /// A decoder override; `nil` uses the client's.
    public let decoder: JSONDecoder?

    /// A JSON decoder; `decoder` overrides the client's `JSONDecoder`.
    public init(decoder: JSONDecoder? = nil) {
        self.decoder = decoder
    }

    /// Decodes the whole body as JSON. An empty body fails with a decoding error that says "empty body".
    public func decode(_ response: ResponseBody) async throws -> Value {
        let data = try await response.data()
        guard !data.isEmpty else { throw EmptyBodyError(expected: Value.self) }
        do {
            return try (decoder ?? response.jsonDecoder).decode(Value.self, from: data)
        } catch {
            throw BodyDecodingError(underlying: error, body: data)
        }
    }
}

/// Decodes a UTF-8 text body into a `String`; a body that is not valid UTF-8 is an error, not garbage.
public struct StringResponseDecoder: ResponseDecoder {
    /// A UTF-8 text decoder.
    public init() {}

    /// Decodes the body as UTF-8.
    public func decode(_ response: ResponseBody) async throws -> String {
        let data = try await response.data()
        guard let text = String(validating: data, as: UTF8.self) else {
            throw BodyDecodingError(
                underlying: InvalidUTF8Error(byteCount: data.count, offset: InvalidUTF8Error.firstInvalidOffset(in: data)),
                body: data
            )
        }
        return text
    }
}

/// Returns the raw body bytes.
public struct DataResponseDecoder: ResponseDecoder {
    /// A raw bytes decoder.
    public init() {}

    /// The body, unchanged.
    public func decode(_ response: ResponseBody) async throws -> Data {
        try await response.data()
    }
}

/// Discards the body without buffering it, for endpoints whose `Response` is `Void`.
public struct EmptyResponseDecoder: ResponseDecoder {
    /// A decoder that discards the body.
    public init() {}

    /// Reads and drops the body.
    public func decode(_ response: ResponseBody) async throws {
        try await response.discard()
    }
}

/// Wraps another decoder: `nil` exactly when the body is empty (RestingKit's rule), otherwise the wrapped value.
public struct OptionalResponseDecoder<Wrapped: ResponseDecoder>: ResponseDecoder {
    /// The decoder for a non-empty body.
    public let wrapped: Wrapped

    /// An optional decoder around `wrapped`.
    public init(_ wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    /// `nil` for an empty body, otherwise the wrapped decoder's value.
    public func decode(_ response: ResponseBody) async throws -> Wrapped.Value? {
        let data = try await response.data()
        guard !data.isEmpty else { return nil }
        return try await wrapped.decode(
            ResponseBody(
                head: response.head,
                storage: .buffered(data),
                jsonDecoder: response.jsonDecoder,
                maxBytes: response.maxBytes
            )
        )
    }
}

/// Thrown by the built-in decoders when a body they need is empty.
struct EmptyBodyError: Error, CustomStringConvertible {
    let expected: Any.Type
    var description: String { "empty body: expected JSON for \(expected), but the response body is empty" }
}

/// Thrown by ``StringResponseDecoder`` for a body that is not UTF-8.
struct InvalidUTF8Error: Error, CustomStringConvertible {
    let byteCount: Int
    let offset: Int?

    var description: String {
        "the body (\(byteCount) bytes) is not valid UTF-8" + (offset.map { " (first invalid byte near offset \($0))" } ?? "")
    }

    static func firstInvalidOffset(in data: Data) -> Int? {
        var decoder = UTF8()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}

extension JSONResponseDecoder {
    /// `true`: the body is read whole before it is decoded.
    public static var readsWholeBody: Bool { true }
}

extension StringResponseDecoder {
    /// `true`: the body is read whole before it is decoded.
    public static var readsWholeBody: Bool { true }
}

extension DataResponseDecoder {
    /// `true`: the body is read whole before it is decoded.
    public static var readsWholeBody: Bool { true }
}

extension OptionalResponseDecoder {
    /// `true`: the body is read whole before it is decoded.
    public static var readsWholeBody: Bool { true }
}
