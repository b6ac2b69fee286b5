import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// The endpoint of the independent JSON-RPC 2.0 server that `scripts/start-peers` starts: `peers/jsonrpc_peer.py`,
/// whose protocol handling (parsing, batches, notifications, error objects, HTTP answers) is the PyPI library
/// `json-rpc` 1.15.0 and its own Flask view.
enum JSONRPCPeer {
    static let url: URL? = ProcessInfo.processInfo.environment["PARLEY_JSONRPC_PEER_URL"].flatMap(URL.init(string:))
}

/// `fail` on the peer: raises the library's `JSONRPCDispatchException(-32010, "Quota exceeded", {"field": "amount"})`.
struct PeerQuotaFail: JSONRPCMethod {
    typealias Result = Int
    static let name = "fail"
}

/// `received` on the peer: the notifications it got so far whose first positional param is `marker`, in order,
/// each as `[method, params]`.
struct PeerReceived: JSONRPCMethod {
    typealias Result = [JSONValue]
    static let name = "received"
    let params: [Int]

    init(_ marker: Int) {
        params = [marker]
    }
}

/// What the peer's `-32602` carries as data: the Python `TypeError` that showed the params do not fit.
struct PeerInvalidParamsData: Decodable, Equatable {
    let type: String
    let message: String
}

/// A raw POST of bytes to the peer, to see its HTTP answer without the JSON-RPC client in between.
struct PeerRawPost: Endpoint {
    typealias Response = Data
    let message: Data
    var method: HTTPRequest.Method { .post }
    var path: Path { "" }
    var body: RequestBody { .bytes(message, contentType: "application/json") }
    var acceptableStatusCodes: StatusCodes? { .any }
}

@Suite(
    "Independent peer: JSON-RPC server (json-rpc)",
    .enabled(if: JSONRPCPeer.url != nil, "scripts/test starts peers/jsonrpc_peer.py and sets PARLEY_JSONRPC_PEER_URL")
)
struct JSONRPCPeerTests {
    func client() throws -> Client {
        Client(baseURL: try #require(JSONRPCPeer.url), transport: AsyncHTTPClientTransport.shared)
    }

    func rpc(ids: any JSONRPCIDGenerator = JSONRPCSequentialIDs()) throws -> JSONRPCClient {
        JSONRPCClient(http: try client(), ids: ids)
    }

    /// A marker no other test (or earlier run against the same peer) uses, to find this test's notifications.
    func marker() -> Int { Int.random(in: 1_000_000...Int(Int32.max)) }

    func notification(_ method: String, _ params: [Int]) -> JSONValue {
        .array([.string(method), .array(params.map(JSONValue.int))])
    }

    @Test("typed calls with positional and named params, no params, and dynamic ones")
    func calls() async throws {
        let rpc = try rpc()
        #expect(try await rpc.call(Subtract(params: [42, 23])) == 19)
        #expect(try await rpc.call(Subtract(params: [23, 42])) == -19)
        #expect(try await rpc.call(SubtractNamed(params: .init(minuend: 42, subtrahend: 23))) == 19)
        #expect(try await rpc.call(SubtractNamed(params: .init(minuend: 23, subtrahend: 42))) == -19)
        #expect(try await rpc.call(Sum(params: [1, 2, 4])) == 7)
        #expect(try await rpc.call(Sum(params: [])) == 0)
        #expect(try await rpc.call(GetDataRPC()) == [.string("hello"), .int(5)])

        // Dynamic calls: no params member at all, positional and named.
        #expect(try await rpc.call(JSONRPCDynamicMethod("get_data")) == .array([.string("hello"), .int(5)]))
        #expect(try await rpc.call(JSONRPCDynamicMethod("sum", params: .array([.int(1), .int(2), .int(4)]))) == .int(7))
        let named: JSONValue = .object([
            "text": .string("ü€ \"quoted\" \\ 😀 \n tab\t"),
            "list": .array([.null, .bool(true), .bool(false), .int(-7), .double(2.5)]),
            "nested": .object(["empty": .object([:]), "none": .array([])]),
        ])
        // The peer's json.dumps escapes every non-ASCII character (a surrogate pair for 😀): it must read back equal.
        #expect(try await rpc.call(JSONRPCDynamicMethod("echo", params: named)) == named)
        #expect(
            try await rpc.call(EchoRPC(params: [.int(Int.max), .int(Int.min), .string("")]))
                == .array([.int(Int.max), .int(Int.min), .string("")])
        )
    }

    @Test("ids: strings and integers at the edges of Int come back as sent")
    func ids() async throws {
        let strings = try rpc(ids: JSONRPCUUIDIDs())
        #expect(try await strings.call(Subtract(params: [42, 23])) == 19)
        let large = try rpc(ids: JSONRPCSequentialIDs(startingAt: Int.max - 1))
        #expect(try await large.call(Sum(params: [1])) == 1)  // id 9223372036854775806
        #expect(try await large.call(Sum(params: [2])) == 2)  // id 9223372036854775807
        let negative = try rpc(ids: JSONRPCCustomIDs { .number(Int.min) })
        #expect(try await negative.call(Sum(params: [3])) == 3)
        let odd = try rpc(ids: JSONRPCCustomIDs { .string("") })
        #expect(try await odd.call(Sum(params: [4])) == 4)
    }

    @Test("a notification gets no answer, and arrives")
    func notification() async throws {
        let rpc = try rpc()
        let marker = marker()
        try await rpc.notify(Update(params: [marker, 2, 3]))
        try await rpc.notify(NotifyHello(params: [marker]))
        // A notification of an unknown method: the peer must not answer it, not even with an error.
        try await rpc.notify(Unknown())
        #expect(
            try await rpc.call(PeerReceived(marker)) == [
                notification("update", [marker, 2, 3]), notification("notify_hello", [marker]),
            ]
        )
    }

    @Test("an unknown method fails with -32601")
    func unknownMethod() async throws {
        let rpc = try rpc()
        let failure = await expectParleyError(.jsonRPCError) { try await rpc.call(Unknown()) }
        let error = try #require(failure?.jsonRPCError)
        #expect(error.code == JSONRPCError.Code.methodNotFound)
        #expect(error.message == "Method not found")
        #expect(error.data == nil)
        #expect(failure?.status?.code == 200)
        #expect(failure?.description.contains("foobar") == true)

        let dynamic = await expectParleyError(.jsonRPCError) {
            try await rpc.call(JSONRPCDynamicMethod("no.such.method", params: .array([])))
        }
        #expect(dynamic?.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)
    }

    @Test("params that do not fit the method fail with -32602, positional and named")
    func invalidParams() async throws {
        let rpc = try rpc()
        let missing = await expectParleyError(.jsonRPCError) { try await rpc.call(Subtract(params: [1])) }
        let error = try #require(missing?.jsonRPCError)
        #expect(error.code == JSONRPCError.Code.invalidParams)
        #expect(error.message == "Invalid params")
        let data = try #require(try error.data(as: PeerInvalidParamsData.self))
        #expect(data.type == "TypeError")
        #expect(data.message.contains("subtrahend"))

        let tooMany = await expectParleyError(.jsonRPCError) { try await rpc.call(Subtract(params: [1, 2, 3])) }
        #expect(tooMany?.jsonRPCError?.code == JSONRPCError.Code.invalidParams)

        let unknownName = await expectParleyError(.jsonRPCError) {
            try await rpc.call(JSONRPCDynamicMethod("subtract", params: .object(["minuend": .int(1), "divisor": .int(2)])))
        }
        #expect(unknownName?.jsonRPCError?.code == JSONRPCError.Code.invalidParams)
    }

    @Test("an application error keeps its code, message and data")
    func applicationError() async throws {
        struct Detail: Decodable, Equatable {
            let field: String
        }
        let rpc = try rpc()
        let failed = await expectParleyError(.jsonRPCError) { try await rpc.call(PeerQuotaFail()) }
        let error = try #require(failed?.jsonRPCError)
        #expect(error.code == -32010)
        #expect(error.message == "Quota exceeded")
        #expect(error.isServerError)
        #expect(error.data == .object(["field": .string("amount")]))
        #expect(try error.data(as: Detail.self) == Detail(field: "amount"))
        let undecodable = await expectParleyError(.decoding) { try error.data(as: [Int].self) }
        #expect(undecodable?.message.contains("-32010") == true)
    }

    @Test("a typed batch: each result matched by id, failures in their own slot")
    func typedBatch() async throws {
        let rpc = try rpc(ids: JSONRPCUUIDIDs())
        let (sum, difference, named, data, unknown, quota, invalid) = try await rpc.batch(
            Sum(params: [1, 2, 4]),
            Subtract(params: [42, 23]),
            SubtractNamed(params: .init(minuend: 23, subtrahend: 42)),
            GetDataRPC(),
            Unknown(),
            PeerQuotaFail(),
            Subtract(params: [1])
        )
        #expect(try sum.get() == 7)
        #expect(try difference.get() == 19)
        #expect(try named.get() == -19)
        #expect(try data.get() == [.string("hello"), .int(5)])
        #expect(throws: ParleyError.self) { try unknown.get() }
        #expect(unknown.failure?.kind == .jsonRPCError)
        #expect(unknown.failure?.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)
        #expect(quota.failure?.jsonRPCError?.code == -32010)
        #expect(quota.failure?.jsonRPCError?.data == .object(["field": .string("amount")]))
        #expect(invalid.failure?.jsonRPCError?.code == JSONRPCError.Code.invalidParams)

        let (a, b) = try await rpc.batchValues(Sum(params: [1]), Sum(params: [2, 3]))
        #expect(a == 1 && b == 5)
        let failure = await expectParleyError(.jsonRPCError) { try await rpc.batchValues(Sum(params: [1]), Unknown()) }
        #expect(failure?.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)

        // A batch of one call is still a batch: the peer answers with an array of one.
        let (single) = try await rpc.batch(Sum(params: [9]))
        #expect(try single.get() == 9)
    }

    @Test("a JSONRPCBatch mixing calls and notifications")
    func mixedBatch() async throws {
        let rpc = try rpc()
        let marker = marker()
        var batch = JSONRPCBatch()
        batch.notify(NotifyHello(params: [marker]))
        let slots = (0..<50).map { batch.call(Sum(params: [$0, 1])) }
        batch.notify(Update(params: [marker, 1]))
        let unknown = batch.call(Unknown())
        let echo = batch.call(EchoRPC(params: [.string("last")]))
        batch.notify(Unknown())  // an unknown method as a notification: no answer, not even an error
        #expect(batch.count == 55)

        let results = try await rpc.send(batch)
        for (index, slot) in slots.enumerated() { #expect(try results[slot].get() == index + 1) }
        #expect(results[unknown].failure?.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)
        #expect(try results[echo].get() == .array([.string("last")]))
        #expect(results.unmatched.isEmpty, "\(results.unmatched)")
        #expect(
            try await rpc.call(PeerReceived(marker)) == [
                notification("notify_hello", [marker]), notification("update", [marker, 1]),
            ]
        )
    }

    @Test("a batch of only notifications: the peer answers nothing, and the client accepts that")
    func notificationBatch() async throws {
        let client = try client()
        let rpc = JSONRPCClient(http: client)
        let marker = marker()

        // What the peer itself answers to such a batch (the status the client must accept): 200 with no body.
        let raw = Data(#"[{"jsonrpc":"2.0","method":"notify_hello","params":[\#(marker)]}]"#.utf8)
        let (body, head) = try await client.response(for: PeerRawPost(message: raw))
        #expect((200...299).contains(head.status.code), "the peer answered HTTP \(head.status.code)")
        #expect(body.isEmpty, "the peer answered \(String(decoding: body, as: UTF8.self))")

        var notifications = JSONRPCBatch()
        notifications.notify(Update(params: [marker, 2]))
        notifications.notify(NotifyHello(params: [marker, 3]))
        notifications.notify(Unknown())
        let results = try await rpc.send(notifications)
        #expect(results.unmatched.isEmpty)
        #expect(
            try await rpc.call(PeerReceived(marker)) == [
                notification("notify_hello", [marker]), notification("update", [marker, 2]),
                notification("notify_hello", [marker, 3]),
            ]
        )
    }

    @Test("200 concurrent calls each get their own result")
    func concurrentCalls() async throws {
        let rpc = try rpc()
        try await withThrowingTaskGroup(of: (Int, JSONValue, Int).self) { group in
            for index in 0..<200 {
                group.addTask {
                    let echo = try await rpc.call(EchoRPC(params: [.int(index), .string("call \(index)")]))
                    let difference = try await rpc.call(Subtract(params: [index, 1_000]))
                    return (index, echo, difference)
                }
            }
            var seen = Set<Int>()
            for try await (index, echo, difference) in group {
                #expect(echo == .array([.int(index), .string("call \(index)")]))
                #expect(difference == index - 1_000)
                seen.insert(index)
            }
            #expect(seen.count == 200)
        }
    }
}

extension Result {
    /// The failure, if any.
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
