import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCWebSocket
import Testing

@Suite("JSON-RPC over WebSocket")
struct JSONRPCWebSocketTests {
    /// Runs `body` with a channel connected to a fresh demo server's `/rpc/ws`.
    func withWebSocket(_ body: (JSONRPCWebSocketChannel, DemoServer) async throws -> Void) async throws {
        let server = try await DemoServer.start()
        do {
            let channel = try await JSONRPCWebSocketChannel.connect(to: server.webSocketURL)
            try await body(channel, server)
            await channel.close()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("1,000 concurrent calls over one WebSocket, each routed to its caller; batches; errors")
    func multiplexing() async throws {
        try await withWebSocket { channel, _ in
            let rpc = JSONRPCClient(channel: channel)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<1_000 {
                    group.addTask {
                        let value = try await rpc.call(EchoRPC(params: [.int(index)]))
                        #expect(value == .array([.int(index)]))
                    }
                }
                try await group.waitForAll()
            }
            let (sum, difference) = try await rpc.batchValues(Sum(params: [1, 2, 4]), Subtract(params: [42, 23]))
            #expect(sum == 7 && difference == 19)
            let unknown = await expectParleyError(.jsonRPCError) { try await rpc.call(Unknown()) }
            #expect(unknown?.jsonRPCError?.code == -32601)
        }
    }

    @Test("server push: a subscription's notifications arrive as an AsyncSequence")
    func serverPush() async throws {
        try await withWebSocket { channel, _ in
            struct SubscribeTicks: JSONRPCMethod {
                typealias Result = String
                static let name = "subscribe_ticks"
                let params: [Int]
            }
            let rpc = JSONRPCClient(channel: channel)
            let subscription = try await rpc.call(SubscribeTicks(params: [5]))
            var ticks: [Int] = []
            for await notification in channel.incoming where notification.method == "tick" {
                #expect(notification.params?["subscription"] == .string(subscription))
                ticks.append(notification.params?["n"]?.intValue ?? -1)
                if ticks.count == 5 { break }
            }
            #expect(ticks == [1, 2, 3, 4, 5])
        }
    }

    @Test("when the connection drops, every pending call fails at once with a transport error")
    func dropFailsPendingCalls() async throws {
        try await withWebSocket { channel, _ in
            let rpc = JSONRPCClient(channel: channel)
            struct Hang: JSONRPCMethod {
                typealias Result = Int
                static let name = "hang"
            }
            struct Drop: JSONRPCMethod {
                typealias Result = Int
                static let name = "drop"
            }
            // Hanging calls pending when the connection drops, and any sent after it, fail with a transport error.
            async let hanging = withThrowingTaskGroup(of: ParleyError?.self) { group in
                for _ in 0..<10 {
                    group.addTask { await expectParleyError(.transport) { try await rpc.call(Hang()) } }
                }
                var failures = 0
                for try await error in group where error != nil { failures += 1 }
                return failures
            }
            _ = try await rpc.call(Sum(params: [1]))
            await expectParleyError(.transport) { try await rpc.call(Drop()) }
            #expect(try await hanging == 10)
            await expectParleyError(.transport) { try await rpc.call(Sum(params: [1])) }
        }
    }

    @Test("a refused connection is a transport error")
    func refused() async throws {
        let url = try await DemoServer.closedPortURL().absoluteString.replacingOccurrences(of: "http://", with: "ws://") + "/rpc/ws"
        await expectParleyError(.transport) { try await JSONRPCWebSocketChannel.connect(to: url) }
    }
}
