// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCWebSocket
import Testing

// The Swift block of Sources/ParleyJSONRPCWebSocket/ParleyJSONRPCWebSocket.docc/ParleyJSONRPCWebSocket.md, run
// against the demo server's JSON-RPC WebSocket.
enum DocCJSONRPCWebSocket {
    struct Sum: JSONRPCMethod {
        typealias Result = Int
        static let name = "sum"
        let params: [Int]
    }

    /// The article's declarations: compiled, not run (the suite's demo server has a WebSocket port of its own).
    static func declarationsOfTheArticle() {
let webSocketURL = "ws://127.0.0.1:8081/rpc/ws"   // the WebSocket URL that parley demo --serve printed
        _ = webSocketURL
    }
}

extension DocCJSONRPCWebSocket {
    @Suite("DocC: JSON-RPC over WebSocket", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a call and a subscription's first notification over one WebSocket")
        func callAndSubscribe() async throws {
            try await withDocServer { _, server in
                let webSocketURL = server.webSocketURL
                let channel = try await JSONRPCWebSocketChannel.connect(to: webSocketURL, reconnect: .default)
                let rpc = JSONRPCClient(channel: channel)
                print(try await rpc.call(Sum(params: [1, 2, 4])))   // 7

                let prices = try await channel.subscribe(
                    JSONRPCDynamicMethod("subscribe", params: .array([.string("prices")])),
                    notifications: .parameter("subscription", of: "subscription"),
                    unsubscribe: "unsubscribe"
                )
                for try await update in prices {
                    print(try update.decodeParams(as: JSONValue.self, at: "result"))   // {"n":0,"topic":"prices"}
                    break
                }
                await channel.close()
                let again = try await JSONRPCWebSocketChannel.connect(to: webSocketURL)
                #expect(try await JSONRPCClient(channel: again).call(Sum(params: [1, 2])) == 3)
                let topic = try await again.subscribe(
                    JSONRPCDynamicMethod("subscribe", params: .array([.string("prices")])),
                    notifications: .parameter("subscription", of: "subscription")
                )
                var first: JSONValue?
                for try await update in topic {
                    first = try update.decodeParams(as: JSONValue.self, at: "result")
                    break
                }
                #expect(first == .object(["n": .int(0), "topic": .string("prices")]))
                await again.close()
            }
        }
    }
}
