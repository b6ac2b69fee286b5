import Foundation
import Logging
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCWebSocket
import Testing
import WSClient

@testable import ParleyTestSupport

/// What the backfill hook was given, for the test to read.
private final class BackfillLog: Sendable {
    private let given = LockedState<[JSONRPCIncoming?]>([])
    var calls: [JSONRPCIncoming?] { given.withLock { $0 } }
    func record(_ last: JSONRPCIncoming?) { given.withLock { $0.append(last) } }
}

@Suite("JSON-RPC over WebSocket: liveness and the gaps of a resubscription", .timeLimit(.minutes(1)))
struct JSONRPCWebSocketLivenessTests {
    typealias Subscribe = JSONRPCWebSocketTests.Subscribe
    typealias Publish = JSONRPCWebSocketTests.Publish
    typealias Drop = JSONRPCWebSocketTests.Drop

    @Test("a half-open connection (no pong comes back) is dropped by the ping's idle limit, and the reconnect policy starts")
    func halfOpenConnectionIsNoticed() async throws {
        let server = try await FaultServer.start()
        defer { Task { await server.stop() } }
        let url = server.baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/websocket-silent"
        let channel = try await JSONRPCWebSocketChannel.connect(
            to: url,
            reconnect: JSONRPCWebSocketTests.quickReconnect,
            pingInterval: .milliseconds(100)
        )
        var events = channel.events.makeAsyncIterator()
        #expect(await events.next() == .connected(generation: 1))
        let dropped = await events.next()
        guard case .disconnected(let reason)? = dropped else {
            Issue.record("expected the silent connection to be dropped, got \(String(describing: dropped))")
            return
        }
        #expect(!reason.isEmpty)
        guard case .reconnecting(attempt: 1, _)? = await events.next() else {
            Issue.record("the reconnect policy did not start")
            return
        }
        #expect(await events.next() == .connected(generation: 2))
        await channel.close()
    }

    @Test("after a resubscription, a backfill hook gets the last notification and its notifications come first")
    func backfillAfterResubscription() async throws {
        let server = try await DemoServer.start()
        defer { Task { await server.stop() } }
        let channel = try await JSONRPCWebSocketChannel.connect(
            to: server.webSocketURL,
            reconnect: JSONRPCWebSocketTests.quickReconnect
        )
        let rpc = JSONRPCClient(channel: channel)
        let log = BackfillLog()
        let prices = try await channel.subscribe(
            Subscribe(params: ["prices"]),
            notifications: .parameter("subscription", of: "subscription"),
            unsubscribe: "unsubscribe",
            backfill: { last in
                log.record(last)
                let seen = last?.params?["result"]?.intValue ?? 0
                return [JSONRPCIncoming(method: "subscription", params: ["result": .int(seen + 100)])]
            }
        )
        var iterator = prices.makeAsyncIterator()
        #expect(try await iterator.next()?.params?["result"]?["n"] == 0)  // the snapshot
        #expect(try await rpc.call(Publish(params: ["prices", 7])) == 1)
        #expect(try await iterator.next()?.params?["result"] == 7)
        await expectParleyError(.transport) { try await rpc.call(Drop()) }
        let backfilled = try #require(try await iterator.next())
        #expect(!backfilled.isGap)
        #expect(backfilled.params?["result"] == 107, "the hook's notification comes before the new subscription's")
        let snapshot = try #require(try await iterator.next())
        #expect(snapshot.params?["result"]?["n"] == 0, "then the new subscription's snapshot: \(snapshot)")
        #expect(log.calls.count == 1)
        #expect(log.calls.first??.params?["result"] == 7, "the hook got the last notification seen")
        await prices.cancel()
        await channel.close()
    }

    @Test("a backfill hook that fails leaves a gap marker")
    func failedBackfillIsAGap() async throws {
        let server = try await DemoServer.start()
        defer { Task { await server.stop() } }
        let channel = try await JSONRPCWebSocketChannel.connect(
            to: server.webSocketURL,
            reconnect: JSONRPCWebSocketTests.quickReconnect
        )
        let rpc = JSONRPCClient(channel: channel)
        let prices = try await channel.subscribe(
            Subscribe(params: ["prices"]),
            notifications: .parameter("subscription", of: "subscription"),
            backfill: { _ throws(ParleyError) in throw ParleyError(.transport, "the archive node is down") }
        )
        var iterator = prices.makeAsyncIterator()
        _ = try await iterator.next()
        await expectParleyError(.transport) { try await rpc.call(Drop()) }
        let gap = try #require(try await iterator.next())
        #expect(gap.isGap)
        #expect(gap.method == "subscription")
        #expect(try await iterator.next()?.isGap == false)
        await prices.cancel()
        await channel.close()
    }

    @Test("WSClient upstream: a close the client starts waits without limit for a silent peer (its ping stops when closing)")
    func upstreamCloseWaitsForSilentPeer() async throws {
        let server = try await FaultServer.start()
        defer { Task { await server.stop() } }
        let url = server.baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/websocket-silent"
        let (closing, closingSent) = AsyncStream.makeStream(of: Void.self)
        let (ended, endedSignal) = AsyncStream.makeStream(of: Bool.self)
        let connection = Task {
            _ = try? await WebSocketClient.connect(
                url: url,
                configuration: .init(closeTimeout: .milliseconds(200), autoPing: .enabled(timePeriod: .milliseconds(100))),
                logger: Logger(label: "parley.test.upstream")
            ) { inbound, outbound, _ in
                try await outbound.close(.normalClosure, reason: nil)
                closingSent.yield()
                for try await _ in inbound {}
            }
            endedSignal.yield(true)
        }
        for await _ in closing { break }
        // 20 times its close timeout and 40 ping periods later, the connection is still waiting for the server.
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(4))
            endedSignal.yield(false)
        }
        var outcome = ended.makeAsyncIterator()
        let finishedByItself = await outcome.next() ?? true
        watchdog.cancel()
        #expect(
            !finishedByItself,
            "WSClient now ends a close against a silent peer: drop the bound in JSONRPCWebSocketChannel.close() and this limitation"
        )
        // Cancelling the connection's task ends it, which is what JSONRPCWebSocketChannel.close() does.
        connection.cancel()
        #expect(await outcome.next() == true)
    }
}
