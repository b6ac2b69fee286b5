import Foundation
import Parley
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

@Suite(
    "MCP eras against independent peers: resources, prompts and completion in both eras (MCP Python SDK 2.3)",
    .enabled(if: MCP2Peer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py"),
    .timeLimit(.minutes(2))
)
struct MCPErasResourceTests {
    @Test(
        "resources (paged), templates, text and blob reads; prompts, a prompt with arguments; completion of both",
        arguments: MCPErasChoice.allCases,
        MCPErasTransport.allCases
    )
    func resourcesPromptsCompletion(choice: MCPErasChoice, transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.dual, transport, era: choice.era) { peer in
            let mcp = peer.mcp

            // Five a page: three pages, followed to the end.
            let resources = try await mcp.listResources()
            #expect(resources.count == 12, "\(resources.map(\.uri))")
            #expect(
                Set(resources.map(\.uri)).isSuperset(of: ["text://greeting", "blob://bytes", "text://item/1", "text://item/10"])
            )
            #expect(resources.first { $0.uri == "blob://bytes" }?.mimeType == "application/octet-stream")
            #expect(peer.mcp.server?.era == (choice.expectsStateless ? .stateless : .handshake))
            #expect(peer.mcp.server?.serverInfo?.name == MCP2Peer.serverName)

            let templates = try await mcp.listResourceTemplates()
            #expect(templates.map(\.uriTemplate) == ["greeting://{name}"], "\(templates)")
            #expect(templates.first?.name == "greeting-for")

            let text = try #require(try await mcp.readResource("text://greeting").first)
            #expect(text.uri == "text://greeting")
            #expect(text.text == "hello from parley-peer2")
            #expect(text.mimeType == "text/plain")
            let blob = try #require(try await mcp.readResource("blob://bytes").first)
            #expect(blob.blob != nil)
            #expect(blob.text == nil)
            #expect(blob.data == Data(0..<16))
            #expect(try await mcp.readResource("greeting://ada").first?.text == "hello ada")

            let prompts = try await mcp.listPrompts()
            let greet = try #require(prompts.first { $0.name == "greet" }, "\(prompts)")
            #expect(greet.arguments.map(\.name) == ["name", "style"])
            #expect(greet.arguments.map(\.required) == [true, false])
            let formal = try await mcp.getPrompt("greet", arguments: ["name": "Ada", "style": "formal"])
            #expect(formal.messages.count == 1)
            #expect(formal.messages.first?.role == "user")
            #expect(formal.messages.first?.text == "Please greet Ada formally.")
            #expect(try await mcp.getPrompt("greet", arguments: ["name": "Bob"]).messages.first?.text == "Please greet Bob.")

            let names = try await mcp.complete(.resourceTemplate("greeting://{name}"), argument: "name", value: "al")
            #expect(names.values == ["alice", "alex"])
            #expect(names.total == 2)
            #expect(!names.hasMore)
            let styles = try await mcp.complete(.prompt("greet"), argument: "style", value: "f", context: ["name": "Ada"])
            #expect(styles.values == ["formal"])

            if choice.expectsStateless, peer.http != nil {
                let reads = try await peer.posts().filter { $0.rpcMethod == "resources/read" }
                #expect(reads.compactMap { $0.header("Mcp-Name") } == ["text://greeting", "blob://bytes", "greeting://ada"])
            }
        }
    }
}

@Suite(
    "MCP eras against independent peers: subscriptions and log messages in both eras (MCP Python SDK 2.3)",
    .enabled(if: MCP2Peer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py"),
    .timeLimit(.minutes(2))
)
struct MCPErasSubscriptionTests {
    @Test(
        "subscribe(resources:) then touch: .resourceUpdated; subscribe(listChanges: [.tools]) then add_tool: .listChanged",
        arguments: MCPErasChoice.allCases,
        MCPErasTransport.allCases
    )
    func subscriptions(choice: MCPErasChoice, transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.dual, transport, era: choice.era) { peer in
            let resource = try await peer.mcp.subscribe(resources: ["text://greeting"])
            #expect(peer.mcp.server?.era.isStateless == choice.expectsStateless)
            let touched = try await peer.mcp.callTool("touch", arguments: ["uri": "text://greeting"])
            #expect(touched.text == "touched text://greeting")
            let update = try await mcpErasFirst(of: resource, "the update of text://greeting") {
                $0 == .resourceUpdated(uri: "text://greeting")
            }
            #expect(update == .resourceUpdated(uri: "text://greeting"))
            resource.cancel()

            let tools = try await peer.mcp.subscribe(listChanges: [.tools])
            let added = try await peer.mcp.callTool("add_tool").text
            #expect(added.hasPrefix("added_"), "\(added)")
            let change = try await mcpErasFirst(of: tools, "tools/list_changed") { $0 == .listChanged(.tools) }
            #expect(change == .listChanged(.tools))
            #expect(try await peer.mcp.listTools().map(\.name).contains(added))
            tools.cancel()

            if peer.http != nil {
                let posts = try await peer.posts().compactMap(\.rpcMethod)
                #expect(posts.contains(choice.expectsStateless ? "subscriptions/listen" : "resources/subscribe"), "\(posts)")
            }
        }
    }

    /// Where log messages can arrive: in the stateless era only on a call's own stream (not a JSON answer).
    static let logCases: [(MCPErasChoice, MCPErasTransport)] =
        MCPErasTransport.streaming.map { (.detected, $0) } + MCPErasTransport.allCases.map { (.handshake, $0) }

    @Test(
        "Configuration.logLevel warning: info is not sent, error is; setLogLevel(debug): debug is; logMessages() yields them",
        arguments: MCPErasSubscriptionTests.logCases
    )
    func logMessages(choice: MCPErasChoice, transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.dual, transport, era: choice.era, logLevel: "warning") { peer in
            try await peer.mcp.connect()
            let messages = try peer.mcp.logMessages()
            let quiet = "quiet \(peer.tag)"
            let loud = "loud \(peer.tag)"
            let chatty = "chatty \(peer.tag)"
            let ours: Set<JSONValue> = [.string(quiet), .string(loud), .string(chatty)]
            // The messages of one connection arrive in order: the first of this test's is the error one.
            _ = try await peer.mcp.callTool("log", arguments: ["message": .string(quiet), "level": "info"])
            let sent = try await peer.mcp.callTool("log", arguments: ["message": .string(loud), "level": "error"])
            #expect(sent.text == "logged at error", "\(sent)")
            try await peer.mcp.setLogLevel("debug")
            _ = try await peer.mcp.callTool("log", arguments: ["message": .string(chatty), "level": "debug"])
            let received = try await mcpErasWithin(.seconds(45), "the log messages") {
                var received: [MCPLogMessage] = []
                for try await message in messages where ours.contains(message.data) {
                    received.append(message)
                    if received.count == 2 { return received }
                }
                throw ParleyError(.transport, "the log messages ended after \(received)")
            }
            #expect(received.map(\.data) == [.string(loud), .string(chatty)], "\(received)")
            #expect(received.map(\.level) == ["error", "debug"])
            #expect(received.first?.logger == "parley-peer2")
            #expect(peer.mcp.server?.era.isStateless == choice.expectsStateless)
            if !choice.expectsStateless, peer.http != nil {
                let levels = try await peer.posts().filter { $0.rpcMethod == "logging/setLevel" }
                #expect(levels.count == 2, "warning at the handshake, then debug: \(levels)")
            }
        }
    }
}

@Suite(
    "MCP eras against independent peers: progress in the stateless era (MCP Python SDK 2.3)",
    .enabled(if: MCP2Peer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py"),
    .timeLimit(.minutes(2))
)
struct MCPErasProgressTests {
    @Test("callTool(count, n: 3, progress: .mcp) yields 3 updates, in order", arguments: MCPErasTransport.streaming)
    func progress(transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.dual, transport) { peer in
            try await peer.mcp.connect()
            #expect(peer.mcp.server?.era == .stateless)
            let call = peer.mcp.callTool("count", arguments: ["n": 3], progress: .mcp)
            // The stream ends when the call does: bounded by the client's timeout.
            var updates: [JSONRPCProgressUpdate] = []
            for await update in call.progress { updates.append(update) }
            #expect(try await call.value.structuredContent == ["result": "counted to 3"])
            #expect(updates.map(\.progress) == [1, 2, 3])
            #expect(updates.map(\.total) == [3, 3, 3])
            #expect(updates.map(\.message) == ["step 1 of 3", "step 2 of 3", "step 3 of 3"])
            #expect(updates.first?.params?["progressToken"] == call.token)
            if peer.http != nil {
                let sent = try #require(peer.bodies.params(of: "tools/call").first)
                #expect(sent["_meta"]?["progressToken"] == call.token)
                #expect(sent["_meta"]?["io.modelcontextprotocol/protocolVersion"] == "2026-07-28")
            }
        }
    }
}
