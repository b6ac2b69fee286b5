#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Parley

/// The member names of request and response objects.
enum MemberKey: String, CodingKey {
    case jsonrpc, method, params, id, result, error
}

/// One request or notification as it goes on the wire: `{"jsonrpc":"2.0","method":…,"params":…,"id":…}`.
struct RequestEnvelope<Method: JSONRPCMethod>: Encodable {
    let method: Method
    /// `nil` for a notification: no `id` member.
    let id: JSONRPCID?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(method.methodName, forKey: .method)
        let params = method.params
        if let absent = params as? any AbsentParams, absent.isAbsent {
            // No `params` member at all.
        } else {
            try container.encode(params, forKey: .params)
        }
        try container.encodeIfPresent(id, forKey: .id)
    }
}

/// A type-erased request, so that a batch of different methods encodes as one array in one pass.
struct AnyRequestEnvelope: Encodable {
    let encodeBody: @Sendable (any Encoder) throws -> Void

    init<Method: JSONRPCMethod>(_ method: Method, id: JSONRPCID?) {
        let envelope = RequestEnvelope(method: method, id: id)
        encodeBody = { encoder in try envelope.encode(to: encoder) }
    }

    func encode(to encoder: any Encoder) throws { try encodeBody(encoder) }
}

/// How to decode the `result` of each id a message waits for: the batch's types, chosen by id while parsing.
final class ResultDecoders: Sendable {
    typealias Decode = @Sendable (KeyedDecodingContainer<MemberKey>) throws -> any Sendable
    let byID: [JSONRPCID: Decode]

    init(_ byID: [JSONRPCID: Decode]) {
        self.byID = byID
    }

    static func decoding<T: Decodable & Sendable>(_ type: T.Type) -> Decode {
        { container in try container.decode(T.self, forKey: .result) }
    }

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
        let decoders = decoder.userInfo[ResultDecoders.userInfoKey] as? ResultDecoders
        let container: KeyedDecodingContainer<MemberKey>
        do {
            container = try decoder.container(keyedBy: MemberKey.self)
        } catch {
            id = nil
            outcome = .violation("is not a JSON object")
            return
        }
        id = nil
        if container.contains(.id), (try? container.decodeNil(forKey: .id)) != true {
            guard let decoded = try? container.decode(JSONRPCID.self, forKey: .id) else {
                outcome = .violation("has an id that is neither an integer nor a string")
                return
            }
            id = decoded
        }
        let version = try? container.decode(String.self, forKey: .jsonrpc)
        guard version == "2.0" else {
            outcome = .violation(
                version.map { "has \"jsonrpc\": \(String(reflecting: $0)) instead of \"2.0\"" }
                    ?? (container.contains(.jsonrpc) ? "has a \"jsonrpc\" member that is not the string \"2.0\"" : "has no \"jsonrpc\": \"2.0\" member")
            )
            return
        }
        if !container.contains(.id) {
            outcome = .violation("has no id member (a response must carry the request's id, or null)")
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
                outcome = .violation("has a malformed error object (it needs an integer \"code\" and a string \"message\"): \(detail)")
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
            var elements: [ResponseElement] = []
            if let count = array.count { elements.reserveCapacity(count) }
            while !array.isAtEnd {
                elements.append(try array.decode(ResponseElement.self))
            }
            self = .batch(elements)
        } else {
            self = .single(ResponseElement(from: decoder))
        }
    }
}
