import FuzzSupport
import Parley
import ParleyJSONRPC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the answer should give one call, read from the reply parsed as plain JSON (``JSONValue``), independently of
/// the client's own parser.
enum Expected<Value: Equatable> {
    /// Exactly one valid answer with a result of the right shape.
    case value(Value)
    /// A valid answer whose result's shape is not checked here.
    case someValue
    /// No valid answer, or one whose result cannot be the call's type.
    case failure
}

struct Oracle {
    /// The reply as JSON, or `nil` when it is not JSON at all.
    let document: JSONValue?
    /// Whether the reply is too broken for the oracle to say what it answers. JSONDecoder checks some strings only
    /// when they are read (an object's keys, a result nobody waits for), so the client may read an answer with
    /// invalid UTF-8 or raw control characters there, which the oracle, reading every key, refuses: for such
    /// replies only the kinds of the failures are checked.
    let isLax: Bool

    init(reply: Data) {
        document = try? JSONDecoder().decode(JSONValue.self, from: reply)
        isLax = document == nil || String(validating: reply, as: UTF8.self) == nil
    }

    /// The response objects of the reply: the array's elements, or the reply itself.
    var elements: [JSONValue] {
        switch document {
        case .array(let elements)?: elements
        case let single?: [single]
        case nil: []
        }
    }

    /// The id a response element carries, as the client reads it: an integer or a string, else none.
    static func id(of element: JSONValue) -> JSONRPCID? {
        guard case .object(let members) = element else { return nil }
        switch members["id"] {
        case .int(let number)?: return .number(number)
        case .string(let text)?: return .string(text)
        default: return nil
        }
    }

    /// The `result` of the one valid success answer to `id`, or `nil` when there is none (no answer, an error answer,
    /// a broken answer, or several answers).
    func result(for id: JSONRPCID) -> JSONValue? {
        let answers = elements.filter { Self.id(of: $0) == id }
        guard answers.count == 1, case .object(let members) = answers[0] else { return nil }
        guard members["jsonrpc"] == .string("2.0"), members["error"] == nil else { return nil }
        return members["result"]
    }

    /// What the call `id` should get, given how its type decodes from JSON.
    func expected<Value>(for id: JSONRPCID, decode: (JSONValue) -> Expected<Value>) -> Expected<Value> {
        guard let result = result(for: id) else { return .failure }
        return decode(result)
    }

    /// Checks one call's outcome against the oracle.
    func check<Value: Equatable>(
        _ outcome: Result<Value, ParleyError>,
        id: JSONRPCID,
        single: Bool = false,
        decode: (JSONValue) -> Expected<Value>
    ) {
        guard !isLax else {
            if case .failure(let error) = outcome { Self.checkFailure(error) }
            return
        }
        var expected = expected(for: id, decode: decode)
        if single, case .array? = document { expected = .failure }  // an array answers a batch, not a call
        switch (outcome, expected) {
        case (.success(let value), .value(let wanted)):
            FuzzCheck.expect(value == wanted, "call \(id): got \(value), the reply says \(wanted)")
        case (.success, .someValue):
            break
        case (.success(let value), .failure):
            FuzzCheck.fail("call \(id) succeeded with \(value), but the reply holds no valid answer of that type to it")
        case (.failure(let error), .value), (.failure(let error), .someValue):
            FuzzCheck.fail("call \(id) failed (\(error.kind): \(error.message)) although the reply answers it validly")
        case (.failure(let error), .failure):
            Self.checkFailure(error)
        }
    }

    /// Every failure of a call is one of the JSON-RPC kinds, well formed, and describable.
    static func checkFailure(_ error: ParleyError) {
        FuzzCheck.expect(
            [.jsonRPCError, .jsonRPCProtocol, .decoding].contains(error.kind),
            "a call failed with the unexpected kind \(error.kind): \(error.message)"
        )
        if error.kind == .jsonRPCError {
            FuzzCheck.expect(error.underlying is JSONRPCError, "a jsonRPCError without the JSONRPCError: \(error.message)")
        }
        FuzzCheck.expect(!error.message.isEmpty, "an empty error message")
        FuzzCheck.expect((error.body?.count ?? 0) <= ParleyError.excerptLimit, "a body excerpt over the limit")
        _ = error.description
    }
}

enum Decode {
    static func int(_ json: JSONValue) -> Expected<Int> {
        if case .int(let value) = json { return .value(value) }
        return .failure
    }

    static func text(_ json: JSONValue) -> Expected<String> {
        if case .string(let value) = json { return .value(value) }
        return .failure
    }

    static func any(_ json: JSONValue) -> Expected<JSONValue> {
        .value(json)
    }

    static func item(_ json: JSONValue) -> Expected<Item> {
        guard case .object(let members) = json, case .string(let name)? = members["name"] else { return .failure }
        switch members["tags"] {
        case nil, .null?:
            return .value(Item(name: name, tags: nil))
        case .array(let elements)?:
            var tags: [Int] = []
            for element in elements {
                guard case .int(let tag) = element else { return .failure }
                tags.append(tag)
            }
            return .value(Item(name: name, tags: tags))
        default:
            return .failure
        }
    }
}
