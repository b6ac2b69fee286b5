import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JSON-RPC request id: a number or a string, kept exactly as sent.
///
/// `.number(1)` and `.string("1")` are different ids: a response must echo the id with its JSON type.
public enum JSONRPCID: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral
{
    /// An integer id.
    case number(Int)
    /// A string id.
    case string(String)

    /// An integer id.
    public init(integerLiteral value: Int) { self = .number(value) }
    /// A string id.
    public init(stringLiteral value: String) { self = .string(value) }

    /// Decodes a number or a string; anything else (a fraction, `true`, an object) fails.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            throw DecodingError.typeMismatch(
                JSONRPCID.self,
                .init(codingPath: decoder.codingPath, debugDescription: "an id must be an integer or a string")
            )
        }
    }

    /// Encodes the number or the string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        }
    }

    /// The id as JSON: `7` or `"7"`.
    public var description: String {
        switch self {
        case .number(let number): String(number)
        case .string(let string): "\"\(string)\""
        }
    }
}

/// Makes the ids of a client's requests. Called concurrently; must never repeat an id within a client.
public protocol JSONRPCIDGenerator: Sendable {
    /// The next id.
    func next() -> JSONRPCID
}

/// Integers counting up from a start (1 by default), safe under concurrency.
public final class JSONRPCSequentialIDs: JSONRPCIDGenerator {
    private let counter: LockedState<Int>

    /// Ids `start`, `start + 1`, …
    public init(startingAt start: Int = 1) {
        counter = LockedState(start)
    }

    /// The next integer.
    public func next() -> JSONRPCID {
        .number(
            counter.withLock { value in
                defer { value &+= 1 }
                return value
            }
        )
    }
}

/// Random UUID strings (`"6F9619FF-8B86-D011-B42D-00C04FC964FF"`).
public struct JSONRPCUUIDIDs: JSONRPCIDGenerator {
    /// UUID ids.
    public init() {}
    /// A new UUID string.
    public func next() -> JSONRPCID { .string(UUID().uuidString) }
}

/// The ids of a list, in order, then those of `fallback` once the list is used up: for a peer or a recording that
/// expects given ids (`JSONRPCListedIDs([1, 2, "a"])`). The list must not repeat an id, nor hold one that `fallback` makes
/// while a call with it is pending.
public final class JSONRPCListedIDs: JSONRPCIDGenerator {
    private let ids: [JSONRPCID]
    private let fallback: any JSONRPCIDGenerator
    private let position = LockedState(0)

    /// `ids`, then `fallback`'s (random UUIDs by default).
    public init(_ ids: [JSONRPCID], then fallback: any JSONRPCIDGenerator = JSONRPCUUIDIDs()) {
        self.ids = ids
        self.fallback = fallback
    }

    /// The next id of the list, or of the fallback.
    public func next() -> JSONRPCID {
        let count = ids.count
        let index: Int? = position.withLock { position in
            guard position < count else { return nil }
            defer { position += 1 }
            return position
        }
        return index.map { ids[$0] } ?? fallback.next()
    }
}

/// Ids from a closure of yours. It is called concurrently and must not repeat an id while a call with it is
/// pending.
public struct JSONRPCCustomIDs: JSONRPCIDGenerator {
    private let make: @Sendable () -> JSONRPCID

    /// Ids from `make`.
    public init(_ make: @escaping @Sendable () -> JSONRPCID) {
        self.make = make
    }

    /// Calls the closure.
    public func next() -> JSONRPCID { make() }
}
