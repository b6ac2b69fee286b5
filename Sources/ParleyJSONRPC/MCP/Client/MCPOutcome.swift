import Parley

/// A result of the stateless era, told apart by its `resultType` in one decoding pass: complete (or absent, as every
/// handshake-era result is) decodes as `Value`, `input_required` as the server's questions.
struct MCPOutcome<Value: Decodable & Sendable>: Decodable, Sendable {
    enum Kind: Sendable {
        case complete(Value)
        case inputRequired(MCPInputRequired)
    }

    let kind: Kind
    /// How long the server says the result may be kept (`ttlMs`); `nil` when it says nothing or zero.
    let ttl: Duration?

    private enum CodingKeys: String, CodingKey {
        case resultType, ttlMs
    }

    init(from decoder: any Decoder) throws {
        let container = try? decoder.container(keyedBy: CodingKeys.self)
        let type = try? container?.decodeIfPresent(String.self, forKey: .resultType)
        // Saturated: a day at most, whatever the server says.
        let milliseconds = (try? container?.decodeIfPresent(Int.self, forKey: .ttlMs)).flatMap { $0 }
        ttl = milliseconds.flatMap { $0 > 0 ? Duration.milliseconds(min($0, 86_400_000)) : nil }
        switch type {
        case nil, "complete": kind = .complete(try Value(from: decoder))
        case "input_required": kind = .inputRequired(try MCPInputRequired(from: decoder))
        case let other?:
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath + [CodingKeys.resultType],
                    debugDescription: "an MCP result of the unknown type \(PrintableText.escaping(String(other.prefix(64))))"
                )
            )
        }
    }
}

/// An `input_required` result (2026-07-28, multi round-trip requests): what the server asks the client for, by key,
/// and the opaque state to send back untouched.
struct MCPInputRequired: Decodable, Sendable {
    /// One question: a method the client answers (`sampling/createMessage`, `elicitation/create`, `roots/list`).
    struct Request: Decodable, Sendable {
        let method: String
        let params: JSONValue?
    }

    let inputRequests: [String: Request]
    let requestState: String?

    private enum CodingKeys: String, CodingKey {
        case inputRequests, requestState
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        inputRequests = try container.decodeIfPresent([String: Request].self, forKey: .inputRequests) ?? [:]
        requestState = try container.decodeIfPresent(String.self, forKey: .requestState)
        guard !inputRequests.isEmpty || requestState != nil else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "an input_required result with neither inputRequests nor requestState"
                )
            )
        }
    }
}

/// A call of an MCP method as sent: its parameters with `_meta` (stateless era) and the answers of the earlier rounds,
/// its routing headers; its result read as ``MCPOutcome``.
struct MCPRequest<Value: Decodable & Sendable>: JSONRPCMethod {
    typealias Result = MCPOutcome<Value>
    static var name: String { "" }
    let methodName: String
    let params: JSONValue
    let isRepeatable: Bool
    let headerFields: Headers
}

/// An MCP method by name with its parameters, for a call whose parameters were changed (a progress token added).
struct MCPMethod<Result: Decodable & Sendable>: JSONRPCMethod {
    static var name: String { "" }
    let methodName: String
    let params: JSONValue
    var isRepeatable = false
}
