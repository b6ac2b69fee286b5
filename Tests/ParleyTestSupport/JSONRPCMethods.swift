import Foundation
import Parley
import ParleyJSONRPC

struct Subtract: JSONRPCMethod {
    typealias Result = Int
    static let name = "subtract"
    let params: [Int]
}

struct SubtractNamed: JSONRPCMethod {
    struct Params: Codable, Sendable {
        let minuend: Int
        let subtrahend: Int
    }
    typealias Result = Int
    static let name = "subtract"
    let params: Params
}

struct Sum: JSONRPCMethod {
    typealias Result = Int
    static let name = "sum"
    let params: [Int]
}

struct GetDataRPC: JSONRPCMethod {
    typealias Result = [JSONValue]
    static let name = "get_data"
}

struct Update: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "update"
    let params: [Int]
}

struct NotifyHello: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "notify_hello"
    let params: [Int]
}

struct EchoRPC: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "echo"
    let params: [JSONValue]
}

struct Fail: JSONRPCMethod {
    struct Params: Codable, Sendable {
        let code: Int
        let message: String
        let data: JSONValue?
    }
    typealias Result = Int
    static let name = "fail"
    let params: Params
}

struct Unknown: JSONRPCMethod {
    typealias Result = Int
    static let name = "foobar"
}

/// A channel that answers every message with bytes the test chooses: how the client reads exactly the
/// specification's responses and every malformed answer. It records what was sent.
// swift-format-ignore
final class ScriptedChannel: JSONRPCChannel, @unchecked Sendable {  // SAFE: tests use it from one task at a time; `sent` is guarded by `lock`.
    private let answer: @Sendable (Data) -> Data?
    private let lock = NSLock()
    private var sentMessages: [Data] = []

    init(_ answer: @escaping @Sendable (Data) -> Data?) {
        self.answer = answer
    }

    convenience init(_ text: String) {
        self.init { _ in Data(text.utf8) }
    }

    var sent: [JSONValue] {
        lock.withLock { sentMessages }.compactMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
    }

    func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        lock.withLock { sentMessages.append(message) }
        guard !ids.isEmpty else { return nil }
        guard let data = answer(message) else { return nil }
        return JSONRPCReply(data: data)
    }
}

func json(_ text: String) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
}
