import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// `sum` as a read (repeatable) and as a write (not).
private struct SumRead: JSONRPCMethod {
    typealias Result = Int
    static let name = "sum"
    let params: [Int]
    var isRepeatable: Bool { true }
}

@Suite(
    "Failover across three servers: one refusing connections, one slow (the json-rpc peer), one fast (the demo server)",
    .enabled(if: JSONRPCPeer.url != nil, "scripts/test starts peers/jsonrpc_peer.py and sets PARLEY_JSONRPC_PEER_URL"),
    .timeLimit(.minutes(1))
)
struct JSONRPCFailoverTests {
    /// The refused, slow and fast endpoints, in that order.
    private func endpoints(_ demo: DemoServer) async throws -> [any JSONRPCChannel] {
        let refused = try await DemoServer.closedPortURL()
        let peer = try #require(JSONRPCPeer.url)
        let fast = try #require(URL(string: demo.baseURL))
        // A connection to the fast server is open before the test: its first answer is not its slowest.
        let warm = JSONRPCClient(http: Client(baseURL: fast, transport: AsyncHTTPClientTransport.shared), path: "/rpc")
        _ = try await warm.call(Sum(params: [0, 0]))
        return [
            JSONRPCHTTPChannel(client: Client(baseURL: refused, transport: AsyncHTTPClientTransport.shared)),
            JSONRPCHTTPChannel(client: Client(baseURL: peer, transport: AsyncHTTPClientTransport.shared), path: "/slow/500"),
            JSONRPCHTTPChannel(client: Client(baseURL: fast, transport: AsyncHTTPClientTransport.shared), path: "/rpc"),
        ]
    }

    @Test("reads skip the failing server, which rests, and favour the fastest, measured again now and then")
    func reads() async throws {
        let demo = try await DemoServer.start()
        defer { Task { await demo.stop() } }
        let channel = JSONRPCFailoverChannel(
            try await endpoints(demo),
            policy: JSONRPCFailoverPolicy(rest: .seconds(60), latencyWeight: 0.7, explorationInterval: 5)
        )
        let rpc = JSONRPCClient(channel: channel, timeout: .seconds(20))
        for index in 0..<20 { #expect(try await rpc.call(SumRead(params: [index, 1])) == index + 1) }
        let status = channel.status
        #expect(status[0].isResting)
        #expect(status[0].failures == 1, "the refused server was tried once, then rested: \(status)")
        #expect(status[2].requests > status[1].requests, "the fast server takes most reads: \(status)")
        #expect(status[1].requests >= 2, "the slow server is measured again now and then: \(status)")
        #expect(status.map(\.requests).reduce(0, +) == 21, "20 reads, one of them tried twice")
    }

    @Test("writes stick to one server; a write that fails is not sent elsewhere, and the next moves on")
    func writes() async throws {
        let demo = try await DemoServer.start()
        defer { Task { await demo.stop() } }
        let channel = JSONRPCFailoverChannel(try await endpoints(demo), policy: JSONRPCFailoverPolicy(rest: .seconds(60)))
        let rpc = JSONRPCClient(channel: channel, timeout: .seconds(20))
        await expectParleyError(.transport) { try await rpc.call(Sum(params: [1, 1])) }
        #expect(channel.status.map(\.requests) == [1, 0, 0], "the failed write went nowhere else")
        for index in 0..<5 { #expect(try await rpc.call(Sum(params: [index, 2])) == index + 2) }
        #expect(channel.status.map(\.requests) == [1, 5, 0], "the writes stuck to the first server that works")
    }

    @Test("a read answered -32005 (rate limited) fails over to the next server")
    func rateLimitFailsOver() async throws {
        let demo = try await DemoServer.start()
        defer { Task { await demo.stop() } }
        let peer = try #require(JSONRPCPeer.url)
        let limited = JSONRPCHTTPChannel(client: Client(baseURL: peer, transport: AsyncHTTPClientTransport.shared))
        let fast = JSONRPCHTTPChannel(
            client: Client(baseURL: try #require(URL(string: demo.baseURL)), transport: AsyncHTTPClientTransport.shared),
            path: "/rpc"
        )
        // A rest longer than any wait of a loaded run: the default 5 s had passed by the check when the call took 22 s.
        let channel = JSONRPCFailoverChannel([limited, fast], policy: JSONRPCFailoverPolicy(rest: .seconds(60)))
        let rpc = JSONRPCClient(channel: channel)
        let key = "failover-\(UUID().uuidString)"
        // The peer's `limited` answers -32005; the demo server has no `limited`, so its -32601 is the call's answer.
        let failure = await expectParleyError(.jsonRPCError) {
            try await rpc.call(JSONRPCDynamicMethod("limited", params: ["key": .string(key), "failures": 5], repeatable: true))
        }
        #expect(failure?.jsonRPCError?.code == -32601)
        #expect(channel.status.map(\.requests) == [1, 1])
        #expect(channel.status[0].isResting)
    }
}
