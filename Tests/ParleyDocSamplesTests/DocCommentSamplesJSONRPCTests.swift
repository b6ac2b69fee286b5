// swift-format-ignore-file
// Laid out line for line as the swift blocks of the doc comments it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCStdio
import ParleyJSONRPCWebSocket
import Testing

// The Swift blocks of the `///` doc comments of Sources/ParleyJSONRPC, Sources/ParleyJSONRPCStdio and
// Sources/ParleyJSONRPCWebSocket. Each sample sits in a function of its own (or, for a sample that declares a type and
// nothing else, directly in the namespace); what a sample assumes (a `client`, an `rpc`, a method type) is declared
// before it, as the function's parameters or a type of the namespace, never in the sample. The tests at the end run
// those that the demo server answers.
enum DocCommentSamplesJSONRPC {
    // Sources/ParleyJSONRPC/Client/JSONRPCMethod.swift
    struct Subtract: JSONRPCMethod {
        typealias Result = Int
        static let name = "subtract"
        let params: [Int]                 // positional: "params": [42, 23]
    }

    struct Sum: JSONRPCMethod {
        typealias Result = Int
        static let name = "sum"
        let params: [Int]
    }

    struct GetData: JSONRPCMethod {
        typealias Result = [JSONValue]
        static let name = "get_data"
    }

    struct Update: JSONRPCMethod {
        typealias Result = JSONValue
        static let name = "update"
        let params: [Int]
    }

    struct NotifyHello: JSONRPCMethod {
        typealias Result = JSONValue
        static let name = "notify_hello"
        let params: [Int]
    }

    struct GetBalance: JSONRPCMethod {
        typealias Result = String
        static let name = "eth_getBalance"
        let address: String
        var params: [String] { [address, "latest"] }
        var isRepeatable: Bool { true }
    }

    struct LongTask: JSONRPCMethod {
        typealias Result = JSONValue
        static let name = "long_task"
    }

    // Sources/ParleyJSONRPC/Nodes/JSONRPCBatchingChannel.swift
    static func sampleBatchingChannel(client: Client) async throws -> (Int, Int) {
        let batching = JSONRPCBatchingChannel(JSONRPCHTTPChannel(client: client, path: "/rpc"), window: .milliseconds(5))
        let rpc = JSONRPCClient(channel: batching)
        async let a = rpc.call(Sum(params: [1, 2]))
        async let b = rpc.call(Subtract(params: [42, 23]))
        print(try await a, try await b)      // one POST with a batch of two calls
        return (try await a, try await b)
    }

    // Sources/ParleyJSONRPC/Nodes/JSONRPCFailoverChannel.swift
    static func sampleFailoverChannel(urls: [URL], address: String) async throws {
        let providers = urls.map { JSONRPCHTTPChannel(client: Client(baseURL: $0)) as any JSONRPCChannel }
        let rpc = JSONRPCClient(channel: JSONRPCFailoverChannel(providers))
        let balance = try await rpc.call(GetBalance(address: address))      // isRepeatable: a read
        _ = balance
    }

    // Sources/ParleyJSONRPC/Router/JSONRPCCancellation.swift
    static func sampleCancellation(server: any JSONRPCChannel, tools: any JSONRPCChannel) {
        let lsp = JSONRPCClient(channel: server, cancellation: .lsp)                  // $/cancelRequest {"id": 7}
        let mcp = JSONRPCClient(channel: tools, timeout: .seconds(30), cancellation: .mcp)
        _ = (lsp, mcp)
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCClient.swift (JSONRPCClient)
    static func sampleClient(client: Client) async throws -> (Int, Result<Int, ParleyError>, Result<[JSONValue], ParleyError>) {
        let rpc = JSONRPCClient(http: client, path: "/rpc")
        let difference = try await rpc.call(Subtract(params: [42, 23]))            // 19
        let (sum, data) = try await rpc.batch(Sum(params: [1, 2, 4]), GetData())    // Result each, matched by id
        try await rpc.notify(Update(params: [1, 2, 3]))
        return (difference, sum, data)
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCClient.swift (JSONRPCBatch)
    static func sampleBatch(rpc: JSONRPCClient) async throws -> Int {
        var batch = JSONRPCBatch()
        let sum = batch.call(Sum(params: [1, 2, 4]))
        batch.notify(NotifyHello(params: [7]))
        let results = try await rpc.send(batch)
        let seven = try results[sum].get()
        return seven
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCMethod.swift (JSONRPCDynamicMethod)
    static func sampleDynamicMethod(rpc: JSONRPCClient) async throws {
        let height: JSONValue = try await rpc.call(JSONRPCDynamicMethod("eth_blockNumber"))
        _ = height
    }

    // Sources/ParleyJSONRPC/Connection/JSONRPCPushChannel.swift
    static func samplePushChannel(rpc: JSONRPCClient) async {
        for await notification in rpc.notifications { print(notification.method) }
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCRetryPolicy.swift
    static func sampleRetryPolicy(client: Client, address: String) async throws {
        let rpc = JSONRPCClient(http: client, retry: JSONRPCRetryPolicy(maxAttempts: 4, retryableCodes: [-32005, -32603]))
        let balance = try await rpc.call(GetBalance(address: address))    // isRepeatable: true
        _ = balance
    }

    // Sources/ParleyJSONRPC/Router/JSONRPCRouter.swift
    static func sampleRouter(message: Data) async -> Data? {
        var router = JSONRPCRouter()
        router.register("sum") { (numbers: [Int]) in numbers.reduce(0, +) }
        router.register("get_data") { () in ["hello", 5] as [JSONValue] }
        let answer = await router.handle(message)    // nil: nothing to send back (only notifications)
        return answer
    }

    // Sources/ParleyJSONRPC/Connection/JSONRPCSubscription.swift
    static func sampleSubscriptionMatcher() {
        // eth_subscribe: {"method": "eth_subscription", "params": {"subscription": "0x9c…", "result": {…}}}
        let heads: JSONRPCSubscriptionMatcher = .parameter("subscription", of: "eth_subscription")
        // every notification of one method, whatever its parameters
        let ticks: JSONRPCSubscriptionMatcher = .method("tick")
        _ = (heads, ticks)
    }

    // Sources/ParleyJSONRPC/MCP/Client/MCPClient.swift (MCPClient)
    static func sampleMCPClient(serverURL: URL) async throws -> MCPToolResult {
        let mcp = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)))
        let server = try await mcp.connect()         // server/discover, or initialize with an older server
        print(server.era)                             // 2026-07-28 (stateless)
        for tool in try await mcp.listTools() { print(tool.name) }
        let sum = try await mcp.callTool("add", arguments: ["a": 2, "b": 3])
        return sum
    }

    // Sources/ParleyJSONRPC/MCP/Client/MCPClient.swift (send)
    static func sampleMCPSend(mcp: MCPClient) async throws -> MCPPromptPage {
        let page = try await mcp.send(MCPListPrompts())
        return page
    }

    // Sources/ParleyJSONRPC/MCP/Client/MCPEra.swift
    static func sampleMCPEra(serverURL: URL) async throws -> MCPServerDescription {
        let pinned = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), era: .handshake)
        return try await pinned.connect()
    }

    // Sources/ParleyJSONRPC/MCP/Client/MCPClientHandlers.swift
    static func sampleMCPClientHandlers() -> MCPClientHandlers {
        var handlers = MCPClientHandlers()
        handlers.elicitation = { request in .accept(["name": "Ada"]) }
        handlers.roots = { [MCPRoot(uri: "file:///srv/project", name: "project")] }
        return handlers
    }

    // Sources/ParleyJSONRPC/MCP/Client/MCPErrorCode.swift. Typed throws: in a function that throws `any Error`, Swift
    // 6.3.1 crashes compiling this `catch where` ("Found ownership error?!" in SILGenCleanup).
    static func sampleMCPErrorCode(mcp: MCPClient) async throws(ParleyError) {
        do {
            _ = try await mcp.callTool("add", arguments: ["a": 1, "b": 2])
        } catch where error.mcpErrorCode == .unsupportedProtocolVersion {
            print(error.mcpSupportedVersions ?? [])
        }
    }

    // Sources/ParleyJSONRPC/MCP/Client/MCPClient+Subscriptions.swift
    static func sampleMCPSubscribe(mcp: MCPClient) async throws {
        let updates = try await mcp.subscribe(resources: ["text://greeting"], listChanges: [.tools])
        for try await update in updates { print(update) }
    }

    // Sources/ParleyJSONRPC/MCP/Client/MCPClient+Tools.swift
    static func sampleMCPCallToolLimits(mcp: MCPClient) async throws -> MCPToolResult {
        let call = mcp.callTool("count", arguments: ["n": 3], limits: JSONRPCCallLimits(total: .seconds(60), idle: .seconds(5)), progress: .mcp)
        for await update in call.progress { print(update.progress ?? 0) }
        print(try await call.value.text)
        return try await call.value
    }

    // Sources/ParleyJSONRPC/MCP/Types/MCPComplete.swift
    static func sampleMCPComplete(rpc: JSONRPCClient) async throws {
        let completion = try await rpc.call(MCPComplete(.prompt("code_review"), argument: "language", value: "py"))
        print(completion.values)   // ["python", "pytorch"]
    }

    // Sources/ParleyJSONRPC/MCP/MCPStreamableHTTPChannel.swift
    static func sampleMCPStreamableHTTPChannel(server: URL) async throws {
        let channel = MCPStreamableHTTPChannel(client: Client(baseURL: server), path: "/mcp")
        let mcp = MCPClient(channel: channel)
        try await mcp.initialize()
        let tools = try await mcp.listTools()
        await channel.close()   // ends the session with DELETE
        _ = tools
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCClient+Progress.swift
    static func sampleClientProgress(rpc: JSONRPCClient) async throws {
        let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp)
        for await update in call.progress { print(update.message ?? "", update.fractionCompleted ?? 0) }
        let result = try await call.value
        _ = result
    }

    static func sampleClientProgressLimits(rpc: JSONRPCClient) async throws {
        let limits = JSONRPCCallLimits(total: .seconds(300), idle: .seconds(10))
        let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp, limits: limits)
        for await update in call.progress { print(update.message ?? "") }
        let result = try await call.value   // timeout after 10 s without progress, or 300 s in all
        _ = result
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCCallLimits.swift
    static func sampleCallLimits(rpc: JSONRPCClient) async throws {
        let limits = JSONRPCCallLimits(total: .seconds(300), idle: .seconds(10))
        let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp, limits: limits)
        let result = try await call.value   // fails after 10 s without progress, and after 300 s in any case
        _ = result
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCProgress.swift
    static func sampleProgress(rpc: JSONRPCClient) async throws {
        let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp)
        for await update in call.progress { print(update.fractionCompleted ?? 0, update.message ?? "") }
        let result = try await call.value
        _ = result
    }

    // Sources/ParleyJSONRPC/Client/JSONRPCProgressCall.swift
    static func sampleProgressCall(rpc: JSONRPCClient) async throws {
        let call = rpc.call(LongTask(), progress: .mcp)
        for await update in call.progress { print(update.progress ?? 0, "of", update.total ?? 0) }
        let result = try await call.value
        _ = result
    }

    // Sources/ParleyJSONRPCStdio/JSONRPCRouter+Serve.swift
    static func sampleServe(router: JSONRPCRouter) async throws {
        try await router.serve(input: .standardInput, output: .standardOutput, framing: .newlineDelimited)
    }

    // Sources/ParleyJSONRPCStdio/JSONRPCStreamChannel+Launch.swift
    static func sampleLaunch() async throws {
        let server = try JSONRPCStreamChannel.launch(
            executable: URL(fileURLWithPath: "/usr/local/bin/parley"), arguments: ["serve-stdio"], framing: .contentLength
        )
        let rpc = JSONRPCClient(channel: server)
        let difference = try await rpc.call(Subtract(params: [42, 23]))
        let exit = await server.shutdown()     // closes its input, waits for it to exit
        _ = (difference, exit)
    }

    // Sources/ParleyJSONRPCStdio/JSONRPCStreamChannel.swift
    static func sampleStreamChannelSubscribe(channel: JSONRPCStreamChannel) async throws {
        let ticks = try await channel.subscribe(JSONRPCDynamicMethod("subscribe", params: ["ticks"]), notifications: .method("tick"))
        for try await tick in ticks { print(tick.params ?? .null) }
    }

    // Sources/ParleyJSONRPCWebSocket/JSONRPCWebSocketChannel.swift (the channel)
    static func sampleWebSocketChannel() async throws {
        let channel = try await JSONRPCWebSocketChannel.connect(to: "ws://127.0.0.1:8080/rpc/ws", reconnect: .default)
        let rpc = JSONRPCClient(channel: channel)
        let sum = try await rpc.call(Sum(params: [1, 2]))
        let heads = try await channel.subscribe(
            JSONRPCDynamicMethod("eth_subscribe", params: ["newHeads"]),
            notifications: .parameter("subscription", of: "eth_subscription"),
            unsubscribe: "eth_unsubscribe"
        )
        for try await head in heads { print(head.params ?? .null) }   // continues across reconnects
        _ = sum
    }

    // Sources/ParleyJSONRPCWebSocket/JSONRPCWebSocketChannel.swift (subscribe with a backfill)
    static func sampleWebSocketBackfill(
        channel: JSONRPCWebSocketChannel,
        headsSince: @escaping @Sendable (JSONRPCIncoming?) async throws(ParleyError) -> [JSONRPCIncoming]
    ) async throws {
        let heads = try await channel.subscribe(
            JSONRPCDynamicMethod("eth_subscribe", params: ["newHeads"]),
            notifications: .parameter("subscription", of: "eth_subscription"),
            unsubscribe: "eth_unsubscribe",
            backfill: { (last) async throws(ParleyError) in try await headsSince(last) }   // the heads after the last one seen
        )
        _ = heads
    }
}

/// Runs the doc-comment samples of ParleyJSONRPC that the demo server or nothing at all can answer.
@Suite("Doc comments: JSON-RPC samples", .timeLimit(.minutes(1)))
struct DocCommentSamplesJSONRPCTests {
    @Test func clientAndBatchAgainstTheDemoServer() async throws {
        try await withDocServer { baseURL, _ in
            let client = Client(baseURL: baseURL)
            let (difference, sum, data) = try await DocCommentSamplesJSONRPC.sampleClient(client: client)
            #expect(difference == 19)
            #expect(try sum.get() == 7)
            #expect(try data.get() == ["hello", 5])
            let seven = try await DocCommentSamplesJSONRPC.sampleBatch(rpc: JSONRPCClient(http: client, path: "/rpc"))
            #expect(seven == 7)
        }
    }

    @Test("the batching channel's sample: two calls in one POST")
    func batchingChannelSendsOnePOST() async throws {
        // A server that counts the POSTs. The window is a time: a machine too busy to start the second call within 5 ms of the first sends two POSTs,
        // so the sample runs until a run sends one (at most 20 runs). Without batching, every run sends two.
        try await CountingServer.run { server in
            let client = Client(baseURL: server.baseURL)
            var posts: [Int] = []
            while posts.count < 20, posts.last != 1 {
                let before = server.count
                let (sum, difference) = try await DocCommentSamplesJSONRPC.sampleBatchingChannel(client: client)
                #expect(sum == 3 && difference == 19)
                posts.append(server.count - before)
            }
            #expect(posts.last == 1, "POSTs of each run: \(posts)")
        }
    }

    @Test func routerAnswersNothingToNotifications() async {
        let notification = Data(#"{"jsonrpc": "2.0", "method": "sum", "params": [1, 2]}"#.utf8)
        #expect(await DocCommentSamplesJSONRPC.sampleRouter(message: notification) == nil)
        let call = Data(#"{"jsonrpc": "2.0", "method": "sum", "params": [1, 2, 4], "id": 1}"#.utf8)
        let answer = try? JSONDecoder().decode(JSONValue.self, from: await DocCommentSamplesJSONRPC.sampleRouter(message: call) ?? Data())
        #expect(answer?[path: "result"] == 7)
    }
}

/// Runs the MCP doc-comment samples against the MCP Python SDK 2.3 server of both eras that scripts/start-peers starts.
@Suite(
    "Doc comments: MCP samples",
    .enabled(if: ProcessInfo.processInfo.environment["PARLEY_MCP2_SSE_URL"] != nil, "scripts/start-peers sets PARLEY_MCP2_SSE_URL"),
    .timeLimit(.minutes(1))
)
struct DocCommentSamplesMCPTests {
    @Test func againstTheDualEraPeer() async throws {
        let serverURL = try #require(ProcessInfo.processInfo.environment["PARLEY_MCP2_SSE_URL"].flatMap(URL.init(string:)))
        let sum = try await DocCommentSamplesJSONRPC.sampleMCPClient(serverURL: serverURL)
        #expect(sum.structuredContent == ["result": 5])
        let mcp = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), timeout: .seconds(30))
        #expect(try await DocCommentSamplesJSONRPC.sampleMCPSend(mcp: mcp).prompts.map(\.name) == ["greet"])
        #expect(try await DocCommentSamplesJSONRPC.sampleMCPEra(serverURL: serverURL).era == .handshake)
        let handlers = DocCommentSamplesJSONRPC.sampleMCPClientHandlers()
        #expect(handlers.capabilities == ["elicitation": ["form": [:], "url": [:]], "roots": [:]])
        try await DocCommentSamplesJSONRPC.sampleMCPErrorCode(mcp: mcp)   // add succeeds: nothing to catch
        #expect(try await DocCommentSamplesJSONRPC.sampleMCPCallToolLimits(mcp: mcp).text == "counted to 3")
    }
}
