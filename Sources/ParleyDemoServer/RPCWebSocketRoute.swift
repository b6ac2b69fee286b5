import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import Parley
import ParleyJSONRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// JSON-RPC over WebSocket at `/rpc/ws`: the same router as `POST /rpc`, answering concurrently, plus server
/// push and faults that only a connection can have:
/// - `subscribe_ticks [n]` answers a subscription id, then pushes `n` notifications
///   `{"method": "tick", "params": {"subscription": id, "n": 1…n}}`;
/// - `subscribe [topic]` answers a subscription id (`"sub-N"`, unique on the server) and at once pushes the
///   topic's current state `{"method": "subscription", "params": {"subscription": id, "result": {"topic": topic,
///   "n": 0}}}`; `publish [topic, value]` pushes `{"subscription": id, "result": value}` to every subscriber
///   of the topic on any connection and answers how many it reached; `unsubscribe [id]` answers whether it
///   ended one (the `eth_subscribe` shape);
/// - `hang` never answers; `hangs_received [n]` answers `n` once `n` hang calls have arrived on this connection
///   (so a test knows they are pending without sleeping); `drop` closes the connection (every pending call of
///   the client must fail).
enum RPCWebSocketRoute {
    static let path = "/rpc/ws"

    static func shouldUpgrade(
        _ request: HTTPRequest,
        topics: TopicBoard
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard request.path == path else { return .dontUpgrade }
        let router = RPCRoutes.makeRouter()
        return .upgrade([:]) { inbound, outbound, _ in
            let subscriptions = LockedCounter()
            let hangs = ArrivalCounter()
            let connection = topics.makeConnectionToken()
            defer { topics.removeAll(of: connection) }
            try await withThrowingDiscardingTaskGroup { group in
                for try await message in inbound.messages(maxSize: RPCRoutes.maxMessageSize) {
                    let data: Data =
                        switch message {
                        case .text(let text): Data(text.utf8)
                        case .binary(let buffer): Data(buffer.readableBytesView)
                        }
                    let request = try? JSONDecoder().decode(JSONValue.self, from: data)
                    switch request?["method"] {
                    case .string("hang")?:
                        hangs.arrived()
                    case .string("hangs_received")?:
                        let count = request?["params"]?[0]?.intValue ?? 1
                        let id = request?["id"] ?? .null
                        group.addTask {
                            await hangs.wait(for: count)
                            try await send(.object(["jsonrpc": .string("2.0"), "result": .int(count), "id": id]), outbound)
                        }
                    case .string("drop")?:
                        try await outbound.close(.goingAway, reason: "drop requested")
                        return
                    case .string("subscribe_ticks")?:
                        let count = request?["params"]?[0]?.intValue ?? 3
                        let subscription = "ticks-\(subscriptions.next())"
                        let id = request?["id"] ?? .null
                        group.addTask {
                            try await send(
                                .object(["jsonrpc": .string("2.0"), "result": .string(subscription), "id": id]),
                                outbound
                            )
                            for n in 1...max(1, count) {
                                let params: JSONValue = .object(["subscription": .string(subscription), "n": .int(n)])
                                try await send(
                                    .object(["jsonrpc": .string("2.0"), "method": .string("tick"), "params": params]),
                                    outbound
                                )
                            }
                        }
                    case .string("subscribe")?:
                        let topic = request?["params"]?[0]?.stringValue ?? "default"
                        let id = request?["id"] ?? .null
                        let subscription = topics.subscribe(topic: topic, connection: connection, outbound: outbound)
                        // In order on this task: the answer first, then the topic's current state.
                        try await send(.object(["jsonrpc": .string("2.0"), "result": .string(subscription), "id": id]), outbound)
                        let snapshot: JSONValue = .object(["topic": .string(topic), "n": .int(0)])
                        try await send(TopicBoard.notification(subscription, snapshot), outbound)
                    case .string("publish")?:
                        let topic = request?["params"]?[0]?.stringValue ?? "default"
                        let value = request?["params"]?[1] ?? .null
                        let id = request?["id"] ?? .null
                        group.addTask {
                            let reached = await topics.publish(value, topic: topic)
                            if id != .null {
                                try await send(.object(["jsonrpc": .string("2.0"), "result": .int(reached), "id": id]), outbound)
                            }
                        }
                    case .string("unsubscribe")?:
                        let subscription = request?["params"]?[0]?.stringValue ?? ""
                        let id = request?["id"] ?? .null
                        let ended = topics.unsubscribe(subscription, connection: connection)
                        try await send(.object(["jsonrpc": .string("2.0"), "result": .bool(ended), "id": id]), outbound)
                    default:
                        group.addTask {
                            if let answer = await router.handle(data) {
                                try await outbound.write(.text(String(decoding: answer, as: UTF8.self)))
                            }
                        }
                    }
                }
            }
        }
    }

    private static func send(_ value: JSONValue, _ outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self)))
    }
}

/// Numbers subscriptions within one connection.
private final class LockedCounter: Sendable {
    private let value = NIOLockedValueBox(0)
    func next() -> Int {
        value.withLockedValue {
            $0 += 1; return $0
        }
    }
}

/// Counts arrivals and wakes those waiting for a count, without polling.
private final class ArrivalCounter: Sendable {
    private struct State {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())

    func arrived() {
        let ready = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let count = state.count
            defer { state.waiters.removeAll { $0.count <= count } }
            return state.waiters.filter { $0.count <= count }.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Bool in
                if state.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// The server's subscriptions by topic, across connections.
final class TopicBoard: Sendable {
    private struct Subscriber {
        let topic: String
        let connection: Int
        let outbound: WebSocketOutboundWriter
    }

    private struct State {
        var subscribers: [String: Subscriber] = [:]
        var next = 0
        var nextConnection = 0
    }

    private let state = NIOLockedValueBox(State())

    func makeConnectionToken() -> Int {
        state.withLockedValue { state in
            state.nextConnection += 1
            return state.nextConnection
        }
    }

    func subscribe(topic: String, connection: Int, outbound: WebSocketOutboundWriter) -> String {
        state.withLockedValue { state in
            state.next += 1
            let id = "sub-\(state.next)"
            state.subscribers[id] = Subscriber(topic: topic, connection: connection, outbound: outbound)
            return id
        }
    }

    func unsubscribe(_ id: String, connection: Int) -> Bool {
        state.withLockedValue { state in
            guard state.subscribers[id]?.connection == connection else { return false }
            state.subscribers[id] = nil
            return true
        }
    }

    func removeAll(of connection: Int) {
        state.withLockedValue { state in state.subscribers = state.subscribers.filter { $0.value.connection != connection } }
    }

    /// Pushes `value` to the topic's subscribers; returns how many it reached.
    func publish(_ value: JSONValue, topic: String) async -> Int {
        let targets = state.withLockedValue { state in state.subscribers.filter { $0.value.topic == topic } }
        var reached = 0
        for (id, subscriber) in targets.sorted(by: { $0.key < $1.key }) {
            let text = (try? JSONEncoder().encode(Self.notification(id, value))).map { String(decoding: $0, as: UTF8.self) } ?? ""
            if (try? await subscriber.outbound.write(.text(text))) != nil { reached += 1 }
        }
        return reached
    }

    static func notification(_ subscription: String, _ result: JSONValue) -> JSONValue {
        .object([
            "jsonrpc": .string("2.0"),
            "method": .string("subscription"),
            "params": .object(["subscription": .string(subscription), "result": result]),
        ])
    }
}
