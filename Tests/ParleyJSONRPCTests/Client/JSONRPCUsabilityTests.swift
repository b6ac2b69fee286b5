import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCWebSocket
import Testing

@testable import ParleyTestSupport

/// What a new user stumbled on (issue 16, item 10): literal params, explicit nulls, ids from a list, a URL to connect.
@Suite("JSON-RPC: literals, explicit nulls, listed ids, URLs", .timeLimit(.minutes(1)))
struct JSONRPCUsabilityTests {
    struct Initialize: JSONRPCMethod {
        struct Params: Codable, Sendable {
            @ExplicitNull var processId: Int?
            var rootUri: String?
        }
        typealias Result = JSONValue
        static let name = "echo"
        let params: Params
    }

    @Test("params written as JSON literals; an explicit null reaches the peer", arguments: TransportKind.allCases)
    func literalsAndNulls(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/rpc")
            let sum = try await rpc.call(JSONRPCDynamicMethod("sum", params: [1, 2, 4]))
            #expect(sum == 7)
            let echoed = try await rpc.call(JSONRPCDynamicMethod("echo", params: ["newHeads", ["includeTransactions": true]]))
            #expect(echoed == ["newHeads", ["includeTransactions": true]])
            // LSP's initialize: "processId": null must be sent, not left out.
            let initialize = try await rpc.call(Initialize(params: .init(processId: nil, rootUri: nil)))
            #expect(initialize == ["processId": nil])
            #expect(initialize.objectValue?.keys.contains("processId") == true)
        }
    }

    @Test("ids from a list, in order, then the fallback's; never repeated under concurrency")
    func listedIDs() async throws {
        let ids = JSONRPCListedIDs(["a", 2, "c"], then: JSONRPCSequentialIDs(startingAt: 100))
        #expect((0..<5).map { _ in ids.next() } == ["a", 2, "c", 100, 101])
        let many = JSONRPCListedIDs((0..<500).map { JSONRPCID.number($0) }, then: JSONRPCSequentialIDs(startingAt: 1_000))
        let drawn = await withTaskGroup(of: [JSONRPCID].self) { group in
            for _ in 0..<8 { group.addTask { (0..<100).map { _ in many.next() } } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(drawn).count == 800)
        // Calls with listed ids are answered and matched against the demo server.
        try await withDemoClient(.asyncHTTPClient) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/rpc", ids: JSONRPCListedIDs(["first", "second"]))
            #expect(try await rpc.call(Subtract(params: [42, 23])) == 19)
            let (a, b) = try await rpc.batch(Subtract(params: [5, 3]), Subtract(params: [9, 1]))
            #expect(try a.get() == 2 && b.get() == 8)
        }
    }

    @Test("a WebSocket channel connects to a URL as well as to a string")
    func connectsToURL() async throws {
        let server = try await DemoServer.start()
        let url = try #require(URL(string: server.webSocketURL))
        let channel = try await JSONRPCWebSocketChannel.connect(to: url)
        let rpc = JSONRPCClient(channel: channel)
        #expect(try await rpc.call(Subtract(params: [42, 23])) == 19)
        await channel.close()
        await server.stop()
    }
}
