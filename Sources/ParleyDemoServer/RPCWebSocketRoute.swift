#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import Parley
import ParleyJSONRPC

/// JSON-RPC over WebSocket at `/rpc/ws`: the same router as `POST /rpc`, answering concurrently, plus server
/// push and faults that only a connection can have:
/// - `subscribe_ticks [n]` answers a subscription id, then pushes `n` notifications
///   `{"method": "tick", "params": {"subscription": id, "n": 1…n}}`;
/// - `hang` never answers; `drop` closes the connection (every pending call of the client must fail).
enum RPCWebSocketRoute {
    static let path = "/rpc/ws"

    static func shouldUpgrade(
        _ request: HTTPRequest
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard request.path == path else { return .dontUpgrade }
        let router = RPCRoutes.makeRouter()
        return .upgrade([:]) { inbound, outbound, _ in
            let subscriptions = LockedCounter()
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
                        continue
                    case .string("drop")?:
                        try await outbound.close(.goingAway, reason: "drop requested")
                        return
                    case .string("subscribe_ticks")?:
                        let count = request?["params"]?[0]?.intValue ?? 3
                        let subscription = "ticks-\(subscriptions.next())"
                        let id = request?["id"] ?? .null
                        group.addTask {
                            try await send(.object(["jsonrpc": .string("2.0"), "result": .string(subscription), "id": id]), outbound)
                            for n in 1...max(1, count) {
                                let params: JSONValue = .object(["subscription": .string(subscription), "n": .int(n)])
                                try await send(.object(["jsonrpc": .string("2.0"), "method": .string("tick"), "params": params]), outbound)
                            }
                        }
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
    func next() -> Int { value.withLockedValue { $0 += 1; return $0 } }
}

