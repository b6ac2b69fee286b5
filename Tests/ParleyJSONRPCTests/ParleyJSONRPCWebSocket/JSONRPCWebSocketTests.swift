import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCWebSocket
import Testing

@testable import ParleyTestSupport

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
        let url =
            try await DemoServer.closedPortURL().absoluteString.replacingOccurrences(of: "http://", with: "ws://") + "/rpc/ws"
        await expectParleyError(.transport) { try await JSONRPCWebSocketChannel.connect(to: url) }
    }

    // MARK: Reconnect and subscriptions

    /// A reconnect policy fast enough for tests (no jitter, 10 ms waits).
    static let quickReconnect = JSONRPCReconnectPolicy(
        maxAttempts: 3,
        initialDelay: .milliseconds(10),
        maxDelay: .milliseconds(50),
        jitter: false
    )

    struct Subscribe: JSONRPCMethod {
        typealias Result = String
        static let name = "subscribe"
        let params: [String]
    }

    struct Publish: JSONRPCMethod {
        typealias Result = Int
        static let name = "publish"
        let params: [JSONValue]
    }

    struct Drop: JSONRPCMethod {
        typealias Result = Int
        static let name = "drop"
    }

    struct Hang: JSONRPCMethod {
        typealias Result = Int
        static let name = "hang"
    }

    struct HangsReceived: JSONRPCMethod {
        typealias Result = Int
        static let name = "hangs_received"
        let params: [Int]
    }

    /// The next notification of `subscription`, failing the test if the sequence ended.
    func next(_ iterator: inout JSONRPCSubscription.AsyncIterator) async throws -> JSONRPCIncoming {
        let notification = try await iterator.next()
        return try #require(notification, "the subscription ended")
    }

    @Test("with a reconnect policy, a subscription's sequence continues across a drop, subscribed again on the new connection")
    func subscriptionContinuesAcrossReconnect() async throws {
        let server = try await DemoServer.start()
        let channel = try await JSONRPCWebSocketChannel.connect(to: server.webSocketURL, reconnect: Self.quickReconnect)
        let rpc = JSONRPCClient(channel: channel)
        let prices = try await channel.subscribe(
            Subscribe(params: ["prices"]),
            notifications: .parameter("subscription", of: "subscription"),
            unsubscribe: "unsubscribe"
        )
        var iterator = prices.makeAsyncIterator()

        // The snapshot the server pushes right after answering, then a published value.
        let snapshot = try await next(&iterator)
        let firstKey = try #require(snapshot.params?["subscription"]?.stringValue)
        #expect(prices.key == .string(firstKey), "the subscription's key is the subscribe call's result")
        #expect(snapshot.params?["result"]?["n"] == .int(0))
        #expect(try await rpc.call(Publish(params: [.string("prices"), .int(1)])) == 1)
        #expect(try await next(&iterator).decodeParams(as: Int.self, at: "result") == 1)

        // The server drops the connection: the call pending at the drop fails at once...
        await expectParleyError(.transport) { try await rpc.call(Drop()) }
        // ...the subscription is issued again on the new connection and the same sequence goes on, after a gap marker
        // (what was published meanwhile is lost).
        let gap = try await next(&iterator)
        #expect(gap.isGap)
        #expect(gap.method == "subscription")
        #expect(gap.params == nil)
        let again = try await next(&iterator)
        #expect(!again.isGap)
        let secondKey = try #require(again.params?["subscription"]?.stringValue)
        #expect(secondKey != firstKey)
        #expect(prices.key == .string(secondKey))
        #expect(again.params?["result"]?["n"] == .int(0))
        #expect(try await rpc.call(Publish(params: [.string("prices"), .int(2)])) == 1)
        #expect(try await next(&iterator).decodeParams(as: Int.self, at: "result") == 2)

        // Cancelling unsubscribes: the server has no subscriber left for the topic.
        await prices.cancel()
        #expect(try await iterator.next() == nil)
        #expect(try await rpc.call(Publish(params: [.string("prices"), .int(3)])) == 0)

        await channel.close()
        var events: [JSONRPCWebSocketChannel.Event] = []
        for await event in channel.events { events.append(event) }
        #expect(events.first == .connected(generation: 1))
        #expect(events.contains(.connected(generation: 2)))
        #expect(events.contains(.resubscribed(generation: 2, count: 1, failed: 0)))
        #expect(events.contains { if case .disconnected = $0 { true } else { false } })
        #expect(events.last == .closed(reason: "it was closed"))
        await server.stop()
    }

    @Test("with a reconnect policy, calls pending at a drop fail and calls made after it wait for the new connection")
    func callsAcrossReconnect() async throws {
        let server = try await DemoServer.start()
        let channel = try await JSONRPCWebSocketChannel.connect(to: server.webSocketURL, reconnect: Self.quickReconnect)
        let rpc = JSONRPCClient(channel: channel)
        async let hanging = expectParleyError(.transport) { try await rpc.call(Hang()) }
        // The server answers once the hang call arrived, so it is pending on this connection.
        #expect(try await rpc.call(HangsReceived(params: [1])) == 1)
        await expectParleyError(.transport) { try await rpc.call(Drop()) }
        let failure = await hanging
        #expect(failure?.message.contains("closed while a call waited") == true)
        // A call after the drop is sent on the new connection.
        #expect(try await rpc.call(Sum(params: [2, 3])) == 5)
        await channel.close()
        await expectParleyError(.transport) { try await rpc.call(Sum(params: [1])) }
        await server.stop()
    }

    @Test("when reconnecting keeps failing, the channel gives up after the policy's attempts: subscriptions and calls fail")
    func reconnectGivesUp() async throws {
        let server = try await DemoServer.start()
        let channel = try await JSONRPCWebSocketChannel.connect(to: server.webSocketURL, reconnect: Self.quickReconnect)
        let ticks = try await channel.subscribe(
            Subscribe(params: ["ticks"]),
            notifications: .parameter("subscription", of: "subscription")
        )
        var iterator = ticks.makeAsyncIterator()
        _ = try await next(&iterator)
        await server.stop()
        // The subscription ends with a transport error naming the attempts, not silently.
        let failure = await expectParleyError(.transport) {
            while try await iterator.next() != nil {}
        }
        #expect(failure?.message.contains("gave up after 3 reconnect attempts") == true)
        await expectParleyError(.transport) { try await JSONRPCClient(channel: channel).call(Sum(params: [1])) }
        var attempts: [Int] = []
        for await event in channel.events {
            if case .reconnecting(let attempt, let delay) = event {
                attempts.append(attempt)
                #expect(delay == Self.quickReconnect.delay(beforeAttempt: attempt))
            }
        }
        #expect(attempts == [1, 2, 3])
    }

    @Test("reconnect backoff: full jitter stays under the exponential bound, which is capped")
    func backoff() {
        let policy = JSONRPCReconnectPolicy(maxAttempts: nil, initialDelay: .milliseconds(100), maxDelay: .seconds(1))
        for attempt in 1...10 {
            let bound = min(Duration.milliseconds(100 * (1 << (attempt - 1))), .seconds(1))
            for _ in 0..<50 {
                let delay = policy.delay(beforeAttempt: attempt)
                #expect(delay >= .zero && delay <= bound)
            }
        }
        var exact = policy
        exact.jitter = false
        #expect(exact.delay(beforeAttempt: 1) == .milliseconds(100))
        #expect(exact.delay(beforeAttempt: 3) == .milliseconds(400))
        #expect(exact.delay(beforeAttempt: 60) == .seconds(1))
    }

    @Test("without a reconnect policy, a subscription ends with a transport error when the connection drops")
    func subscriptionEndsWithoutPolicy() async throws {
        try await withWebSocket { channel, _ in
            let rpc = JSONRPCClient(channel: channel)
            let ticks = try await channel.subscribe(
                Subscribe(params: ["t"]),
                notifications: .parameter("subscription", of: "subscription")
            )
            var iterator = ticks.makeAsyncIterator()
            _ = try await next(&iterator)
            await expectParleyError(.transport) { try await rpc.call(Drop()) }
            await expectParleyError(.transport) { while try await iterator.next() != nil {} }
        }
    }

    @Test("a refused subscribe call throws the server's error; notifications of no subscription stay on incoming")
    func refusedSubscription() async throws {
        try await withWebSocket { channel, _ in
            let failure = await expectParleyError(.jsonRPCError) {
                try await channel.subscribe(JSONRPCDynamicMethod("no_such_subscribe"), notifications: .method("x"))
            }
            #expect(failure?.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)
            // `tick` notifications belong to no subscription here: they arrive on incoming.
            struct SubscribeTicks: JSONRPCMethod {
                typealias Result = String
                static let name = "subscribe_ticks"
                let params: [Int]
            }
            let rpc = JSONRPCClient(channel: channel)
            _ = try await rpc.call(SubscribeTicks(params: [1]))
            for await notification in channel.incoming {
                #expect(notification.method == "tick")
                break
            }
        }
    }
}
