// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCWebSocket
import Testing

// The Swift blocks of Sources/ParleyJSONRPC/ParleyJSONRPC.docc/JSONRPCForNodes.md, run against the demo server's
// JSON-RPC over HTTP and WebSocket; the backfill sample needs an Ethereum node, so it is compiled, not run.
enum DocCJSONRPCForNodes {
struct Sum: JSONRPCMethod {
    typealias Result = Int
    static let name = "sum"
    let params: [Int]
    var isRepeatable: Bool { true }   // a read: safe to send again, to any provider
}

struct Update: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "update"
    let params: [Int]                 // a write: sent once, to one provider
}

struct BlockNumber: JSONRPCMethod {
    typealias Result = String   // "0x12a05f2"
    static let name = "eth_blockNumber"
    var isRepeatable: Bool { true }
}

struct BlockByNumber: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "eth_getBlockByNumber"
    let params: [JSONValue]   // ["0x12a05f3", false]
    var isRepeatable: Bool { true }
}

    /// The article's blocks that need a reader's demo server on port 8080, or an Ethereum node: compiled, never called.
    static func compiledOnly() async throws {
let baseURL = URL(string: "http://127.0.0.1:8080")!            // swift run parley demo --serve --port 8080
let webSocketURL = URL(string: "ws://127.0.0.1:8080/rpc/ws")!
        _ = (baseURL, webSocketURL)
let mainnet = try await JSONRPCWebSocketChannel.connect(to: URL(string: "wss://node.example.com")!, reconnect: .default)
let eth = JSONRPCClient(channel: mainnet, retry: JSONRPCRetryPolicy())
let heads = try await mainnet.subscribe(
    JSONRPCDynamicMethod("eth_subscribe", params: ["newHeads"]),
    notifications: .parameter("subscription", of: "eth_subscription"),
    unsubscribe: "eth_unsubscribe",
    backfill: { (last: JSONRPCIncoming?) async throws(ParleyError) -> [JSONRPCIncoming] in
        guard let number = last?.params?["result"]?["number"]?.stringValue, let seen = Int(number.dropFirst(2), radix: 16)
        else { return [] }
        let newest = try await eth.call(BlockNumber())
        guard let latest = Int(newest.dropFirst(2), radix: 16), latest > seen else { return [] }
        var missed: [JSONRPCIncoming] = []
        for block in (seen + 1)...latest {
            let head = try await eth.call(BlockByNumber(params: [.string("0x" + String(block, radix: 16)), false]))
            missed.append(JSONRPCIncoming(method: "eth_subscription", params: ["result": head]))
        }
        return missed
    }
)
for try await head in heads {
    print(head.params?["result"]?["number"] ?? .null)   // every head, none missing across reconnects
}
    }
}

extension DocCJSONRPCForNodes {
    @Suite("DocC: JSON-RPC for nodes", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("failover: a read moves past a provider that is down; a write goes to the first awake one")
        func failover() async throws {
            try await withDocServer { baseURL, _ in
let down = URL(string: "http://127.0.0.1:9")!   // nothing listens there: a provider that is down
let providers: [any JSONRPCChannel] = [down, baseURL].map { url in
    JSONRPCHTTPChannel(client: Client(baseURL: url), path: "/rpc")
}
let failover = JSONRPCFailoverChannel(providers, policy: JSONRPCFailoverPolicy(rest: .seconds(10)))
let node = JSONRPCClient(channel: failover)
print(try await node.call(Sum(params: [1, 2])))   // 3: the first provider failed, the second answered
print(try await node.call(Update(params: [7])))   // null: writes go to the first provider that does not rest
for endpoint in failover.status {
    print(endpoint.index, endpoint.requests, endpoint.failures, endpoint.isResting)   // 0 1 1 true, then 1 2 0 false
}
                let status = failover.status
                #expect(status.map(\.failures) == [1, 0])
                #expect(status.map(\.isResting) == [true, false])
                #expect(status.map(\.requests) == [1, 2])
            }
        }

        @Test("a read is retried within a shared budget, a write is not")
        func retryBudget() async throws {
            // Not in withDocServer's closure: a `catch` infers the thrown type of its `do` only outside closures.
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
let budget = RetryBudget(ratio: 0.1, reserve: 5)   // shared: retries add at most 10 % to these clients' load
let quick = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10))
let overloaded = Client(baseURL: baseURL, middlewares: [.retry(quick, budget: budget)])
let busy = JSONRPCClient(http: overloaded, path: "/rpc/http-error/503", retry: JSONRPCRetryPolicy(maxAttempts: 2))
do {
    _ = try await busy.call(Sum(params: [1]))
} catch {
    print("read", error.kind)    // jsonRPCError (the 503's error object), after the middleware sent it 3 times
}
do {
    _ = try await busy.call(Update(params: [1]))
} catch {
    print("write", error.kind)   // jsonRPCError, sent once: a write is never repeated
}
print(budget.available)   // 3.2: 5, plus 0.1 for each of the two calls, minus 1 for each of the read's 2 retries
            #expect(abs(budget.available - 3.2) < 0.001)
        }

        @Test("two calls in one batch")
        func batching() async throws {
            // A server that counts the POSTs. The window is a time: a machine too busy to start the second call within
            // 5 ms of the first sends two POSTs, so the sample runs until a run sends one (at most 20 runs). Without
            // batching, every run sends two.
            try await CountingServer.run { server in
                let baseURL = server.baseURL
                var posts: [Int] = []
                while posts.count < 20, posts.last != 1 {
                    let before = server.count
let batching = JSONRPCBatchingChannel(
    JSONRPCHTTPChannel(client: Client(baseURL: baseURL), path: "/rpc"), window: .milliseconds(5), maxBatchSize: 50
)
let batched = JSONRPCClient(channel: batching)
async let small = batched.call(Sum(params: [1, 2]))
async let large = batched.call(Sum(params: [40, 2]))
print(try await small, try await large)   // 3 42, in one POST
                    #expect(try await small == 3)
                    #expect(try await large == 42)
                    posts.append(server.count - before)
                }
                #expect(posts.last == 1, "POSTs of each run: \(posts)")
            }
        }

        @Test("a subscription across a dropped connection: the gap marker, then the new subscription's notifications")
        func subscriptionGap() async throws {
            try await withDocServer { _, server in
                let webSocketURL = try #require(URL(string: server.webSocketURL))
let channel = try await JSONRPCWebSocketChannel.connect(
    to: webSocketURL,
    reconnect: JSONRPCReconnectPolicy(maxAttempts: 5, initialDelay: .milliseconds(50), maxDelay: .seconds(5)),
    pingInterval: .seconds(15)
)
let connectionLog = Task {
    for await event in channel.events { print(event) }   // connected(generation: 1), disconnected(…), reconnecting(…), …
}
let prices = try await channel.subscribe(
    JSONRPCDynamicMethod("subscribe", params: ["prices"]),
    notifications: .parameter("subscription", of: "subscription"),
    unsubscribe: "unsubscribe"
)
var updates = prices.makeAsyncIterator()
let first = try await updates.next()
print(first?.params?["result"] ?? .null)     // {"n":0,"topic":"prices"}
_ = try? await JSONRPCClient(channel: channel).call(JSONRPCDynamicMethod("drop"))   // the server drops the connection
let gap = try await updates.next()
print(gap?.isGap ?? false)                   // true: notifications may have been missed here
let resumed = try await updates.next()
print(resumed?.params?["result"] ?? .null)   // {"n":0,"topic":"prices"}: the new subscription's first
await channel.close()
await connectionLog.value   // events ends when the channel closes
                #expect(first?.isGap == false)
                #expect(gap?.isGap == true)
                #expect(resumed?.params?["result"] == ["n": 0, "topic": "prices"])
            }
        }
    }
}
