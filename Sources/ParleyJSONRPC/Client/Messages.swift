public import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The member names of request and response objects.
@usableFromInline
enum MemberKey: String, CodingKey {
    case jsonrpc, method, params, id, result, error
}

/// One request or notification as it goes on the wire: `{"jsonrpc":"2.0","method":…,"params":…,"id":…}`.
@usableFromInline
struct RequestEnvelope<Method: JSONRPCMethod>: Encodable, Sendable {
    @usableFromInline let method: Method
    /// `nil` for a notification: no `id` member.
    @usableFromInline let id: JSONRPCID?

    @inlinable
    init(method: Method, id: JSONRPCID?) {
        self.method = method
        self.id = id
    }

    @inlinable
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(method.methodName, forKey: .method)
        // No `params` member at all for methods without parameters (type comparisons, no dynamic casts).
        if Method.Params.self == JSONRPCNoParams.self {
        } else if Method.Params.self == JSONValue?.self, let dynamic = method.params as? JSONValue? {
            // Dynamic parameters (JSONRPCDynamicMethod, or any method whose Params is `JSONValue?`): nil leaves
            // `params` out, a scalar is refused.
            switch dynamic {
            case nil, .array?, .object?: try container.encodeIfPresent(dynamic, forKey: .params)
            case let scalar?:
                throw EncodingError.invalidValue(
                    scalar,
                    .init(
                        codingPath: [MemberKey.params],
                        debugDescription: "JSON-RPC params must be an array (positional) or an object (named), not \(scalar)"
                    )
                )
            }
        } else {
            try container.encode(method.params, forKey: .params)
        }
        // Primitives straight into the container: a nested Encodable would cost an encoder per element.
        switch id {
        case .number(let number)?: try container.encode(number, forKey: .id)
        case .string(let string)?: try container.encode(string, forKey: .id)
        case nil: break
        }
    }
}

/// A type-erased request, so that a batch of different methods encodes as one array in one pass.
@usableFromInline
struct AnyRequestEnvelope: Encodable, Sendable {
    @usableFromInline let encodeBody: @Sendable (any Encoder) throws -> Void

    @inlinable
    init<Method: JSONRPCMethod>(_ method: Method, id: JSONRPCID?) {
        let envelope = RequestEnvelope(method: method, id: id)
        encodeBody = { encoder in try envelope.encode(to: encoder) }
    }

    @usableFromInline
    func encode(to encoder: any Encoder) throws { try encodeBody(encoder) }
}

/// How to decode the `result` of each id a message waits for: the batch's types, chosen by id while parsing.
@usableFromInline
final class ResultDecoders: Sendable {
    @usableFromInline
    typealias Decode = @Sendable (KeyedDecodingContainer<MemberKey>) throws -> any Sendable
    let byID: [JSONRPCID: Decode]

    init(_ byID: [JSONRPCID: Decode]) {
        self.byID = byID
    }

    @inlinable
    static func decoding<T: Decodable & Sendable>(_ type: T.Type) -> Decode {
        { container in try container.decode(T.self, forKey: .result) }
    }

    // swift-format-ignore
    static let userInfoKey = CodingUserInfoKey(rawValue: "parley.jsonrpc.resultDecoders")!  // SAFE: a non-empty literal key always succeeds.
}

/// One response object, checked member by member; never throws, so one bad element cannot hide the others.
struct ResponseElement: Decodable {
    enum Outcome {
        /// The decoded result.
        case result(any Sendable)
        /// The result member is there but nobody waits for this id, so it was not decoded.
        case unclaimedResult
        /// The result could not be decoded into the caller's type.
        case undecodable(DecodingError)
        /// An error object.
        case error(JSONRPCError)
        /// The object breaks JSON-RPC 2.0; the text says how.
        case violation(String)
    }

    /// The id, or `nil` when it is `null` or missing.
    var id: JSONRPCID?
    var outcome: Outcome

    init(from decoder: any Decoder) {
        self.init(from: decoder, decoders: decoder.userInfo[ResultDecoders.userInfoKey] as? ResultDecoders)
    }

    init(from decoder: any Decoder, decoders: ResultDecoders?) {
        let container: KeyedDecodingContainer<MemberKey>
        do {
            container = try decoder.container(keyedBy: MemberKey.self)
        } catch {
            id = nil
            outcome = .violation("is not a JSON object")
            return
        }
        // Primitives straight from the container (a nested Decodable would cost a decoder per element);
        // the common case, an integer id, takes one lookup.
        if let number = try? container.decode(Int.self, forKey: .id) {
            id = .number(number)
        } else if let string = try? container.decode(String.self, forKey: .id) {
            id = .string(string)
        } else if !container.contains(.id) {
            id = nil
            outcome = .violation("has no id member (a response must carry the request's id, or null)")
            return
        } else if (try? container.decodeNil(forKey: .id)) == true {
            id = nil
        } else {
            id = nil
            outcome = .violation("has an id that is neither an integer nor a string")
            return
        }
        let version = try? container.decode(String.self, forKey: .jsonrpc)
        guard version == "2.0" else {
            outcome = .violation(
                version.map { "has \"jsonrpc\": \(String(reflecting: $0)) instead of \"2.0\"" }
                    ?? (container.contains(.jsonrpc)
                        ? "has a \"jsonrpc\" member that is not the string \"2.0\"" : "has no \"jsonrpc\": \"2.0\" member")
            )
            return
        }
        switch (container.contains(.result), container.contains(.error)) {
        case (true, true):
            outcome = .violation("has both \"result\" and \"error\"")
        case (false, false):
            outcome = .violation("has neither \"result\" nor \"error\"")
        case (false, true):
            do {
                outcome = .error(try container.decode(JSONRPCError.self, forKey: .error))
            } catch {
                let detail = (error as? DecodingError)?.explanation.message ?? "\(error)"
                outcome = .violation(
                    "has a malformed error object (it needs an integer \"code\" and a string \"message\"): \(detail)"
                )
            }
        case (true, false):
            guard let id, let decode = decoders?.byID[id] else {
                outcome = .unclaimedResult
                return
            }
            do {
                outcome = .result(try decode(container))
            } catch let error as DecodingError {
                outcome = .undecodable(error)
            } catch {
                outcome = .violation("has a result that could not be read: \(error)")
            }
        }
    }
}

/// A whole reply: one response object, or an array of them (for a batch).
enum Reply: Decodable {
    case single(ResponseElement)
    case batch([ResponseElement])

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            let decoders = decoder.userInfo[ResultDecoders.userInfoKey] as? ResultDecoders
            var elements: [ResponseElement] = []
            if let count = array.count { elements.reserveCapacity(count) }
            while !array.isAtEnd {
                elements.append(ResponseElement(from: try array.superDecoder(), decoders: decoders))
            }
            self = .batch(elements)
        } else {
            self = .single(ResponseElement(from: decoder))
        }
    }
}
