import Parley
import ParleyJSONRPC
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct IntMethod: JSONRPCMethod {
    typealias Result = Int
    static let name = "int"
}

struct TextMethod: JSONRPCMethod {
    typealias Result = String
    static let name = "text"
}

struct Item: Decodable, Sendable, Equatable {
    let name: String
    let tags: [Int]?
}

struct ItemMethod: JSONRPCMethod {
    typealias Result = Item
    static let name = "item"
}

/// Answers every message with the fuzz input.
struct ReplayChannel: JSONRPCChannel {
    let reply: Data

    func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        ids.isEmpty ? nil : JSONRPCReply(data: reply)
    }
}

/// Ids `"a"`, `"b"`, … for one client.
final class LetterIDs: JSONRPCIDGenerator {
    private let letter = Mutex(UInt8(ascii: "a"))

    func next() -> JSONRPCID {
        .string(String(UnicodeScalar(self.letter.withLock { letter in
            defer { letter += 1 }
            return letter
        })))
    }
}
