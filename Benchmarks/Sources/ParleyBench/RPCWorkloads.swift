import AsyncHTTPClient
import Foundation
import NIOCore
import Parley
import ParleyJSONRPC

struct SumCall: JSONRPCMethod {
    typealias Result = Int
    static let name = "sum"
    let params: [Int]
}

/// The JSON-RPC request and response a user would write by hand with AsyncHTTPClient and Codable.
struct RawRPCRequest: Encodable {
    let jsonrpc = "2.0"
    let method: String
    let params: [Int]
    let id: Int
}

struct RawRPCResponse: Decodable {
    let jsonrpc: String
    let result: Int?
    let error: JSONRPCError?
    let id: Int?
}

enum RawRPC {
    /// One `sum` call posted with AsyncHTTPClient, the response decoded with JSONDecoder and checked.
    static func call(_ client: HTTPClient, url: String, id: Int) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            ByteBuffer(bytes: try JSONEncoder().encode(RawRPCRequest(method: "sum", params: [1, 2, 4], id: id)))
        )
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw BenchError.status(Int(response.status.code)) }
        let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
        let decoded = try JSONDecoder().decode(RawRPCResponse.self, from: Data(body.readableBytesView))
        guard decoded.jsonrpc == "2.0", decoded.id == id, let result = decoded.result else { throw BenchError.status(-2) }
        return result
    }
}

/// A channel that answers every batch with the same bytes, without a network: what is measured is
/// encoding the batch and decoding its answer.
struct FixedReplyChannel: JSONRPCChannel {
    let reply: Data

    func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        JSONRPCReply(data: reply)
    }
}

enum Batch100 {
    static let size = 100

    /// The answer to 100 `sum` calls with ids 1…100, in reverse order (a server may answer in any order).
    static let reply: Data = {
        let elements = (1...size).reversed().map { #"{"jsonrpc":"2.0","result":\#($0 * 3),"id":\#($0)}"# }
        return Data(("[" + elements.joined(separator: ",") + "]").utf8)
    }()

    /// Parley: a run-time batch of 100 typed calls, encoded, answered, matched by id and decoded.
    static func parley() async throws -> Int {
        let rpc = JSONRPCClient(channel: FixedReplyChannel(reply: reply), ids: JSONRPCSequentialIDs())
        var batch = JSONRPCBatch()
        let slots = (1...size).map { batch.call(SumCall(params: [$0, $0, $0])) }
        let results = try await rpc.send(batch)
        var total = 0
        for slot in slots { total += try results[slot].get() }
        return total
    }

    /// The bare coders on the same payloads: encode 100 requests, decode 100 responses.
    static func bare() throws -> Int {
        let requests = (1...size).map { RawRPCRequest(method: "sum", params: [$0, $0, $0], id: $0) }
        let message = try JSONEncoder().encode(requests)
        precondition(!message.isEmpty)
        let responses = try JSONDecoder().decode([RawRPCResponse].self, from: reply)
        return responses.reduce(0) { $0 + ($1.result ?? 0) }
    }
}
