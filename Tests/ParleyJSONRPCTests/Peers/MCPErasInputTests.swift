import Foundation
import Parley
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

@Suite(
    "MCP eras against independent peers: Mcp-Param-* headers from x-mcp-header (MCP Python SDK 2.3)",
    .enabled(if: MCP2Peer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py"),
    .timeLimit(.minutes(2))
)
struct MCPErasParameterHeaderTests {
    static let servers: [(MCPErasServer, MCPErasTransport)] = [(.dual, .httpJSON), (.dual, .httpSSE), (.modern, .httpSSE)]

    @Test(
        "after tools/list, tenant_echo carries Mcp-Param-Tenant (and no header for region)",
        arguments: MCPErasParameterHeaderTests.servers
    )
    func afterListing(server: MCPErasServer, transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(server, transport) { peer in
            let tool = try #require(try await peer.mcp.listTools().first { $0.name == "tenant_echo" })
            #expect(tool.inputSchema?["properties"]?["tenant"]?["x-mcp-header"] == "Tenant")
            let result = try await peer.mcp.callTool("tenant_echo", arguments: ["tenant": "acme", "region": "eu-west"])
            #expect(!result.isError, "\(result)")
            #expect(result.structuredContent == ["tenant": "acme", "region": "eu-west", "header": "acme"])
            let calls = try await peer.posts().filter { $0.rpcMethod == "tools/call" }
            #expect(calls.count == 1, "one call, no -32020 round: \(calls)")
            #expect(calls.first?.header("Mcp-Param-Tenant") == "acme")
            #expect(calls.first?.header("Mcp-Name") == "tenant_echo")
            #expect(calls.first.map { $0.headers.keys.filter { $0.hasPrefix("mcp-param-") } } == ["mcp-param-tenant"])
        }
    }

    @Test(
        "without a prior tools/list: refused with -32020, the client lists the tools and calls again with the header",
        arguments: MCPErasParameterHeaderTests.servers
    )
    func withoutListing(server: MCPErasServer, transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(server, transport) { peer in
            let result = try await peer.mcp.callTool("tenant_echo", arguments: ["tenant": "globex", "region": "us"])
            #expect(!result.isError, "\(result)")
            #expect(result.structuredContent?["header"] == "globex")
            let posts = try await peer.posts()
            #expect(posts.map(\.rpcMethod) == ["server/discover", "tools/call", "tools/list", "tools/call"], "\(posts)")
            let calls = posts.filter { $0.rpcMethod == "tools/call" }
            #expect(calls.first?.header("Mcp-Param-Tenant") == nil)
            #expect(calls.last?.header("Mcp-Param-Tenant") == "globex")
            // Known now: a second call goes right away with the header.
            _ = try await peer.mcp.callTool("tenant_echo", arguments: ["tenant": "initech", "region": "us"])
            let after = try await peer.posts()
            #expect(after.count == posts.count + 1)
            #expect(after.last?.header("Mcp-Param-Tenant") == "initech")
        }
    }

    @Test(
        "a value that is not plain ASCII is sent as =?base64?…?= of its UTF-8",
        arguments: MCPErasParameterHeaderTests.servers
    )
    func nonASCII(server: MCPErasServer, transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(server, transport) { peer in
            _ = try await peer.mcp.listTools()
            let tenant = "Zürich ☃ 東京"
            let wrapped = "=?base64?\(Data(tenant.utf8).base64EncodedString())?="
            let result = try await peer.mcp.callTool("tenant_echo", arguments: ["tenant": .string(tenant), "region": "ch"])
            #expect(!result.isError, "\(result)")
            #expect(result.structuredContent?["tenant"] == .string(tenant))
            #expect(result.structuredContent?["header"] == .string(wrapped))
            let call = try #require(try await peer.posts().last { $0.rpcMethod == "tools/call" })
            #expect(call.header("Mcp-Param-Tenant") == wrapped)
        }
    }
}

@Suite(
    "MCP eras against independent peers: elicitation, sampling and roots answered by the same handlers in both eras",
    .enabled(if: MCP2Peer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py"),
    .timeLimit(.minutes(2))
)
struct MCPErasInputTests {
    @Test(
        "elicitation: ask_name with the handler's answer, then declined; open_url in URL mode",
        arguments: MCPErasChoice.allCases,
        MCPErasTransport.allCases
    )
    func elicitation(choice: MCPErasChoice, transport: MCPErasTransport) async throws {
        let asked = MCPErasAsked<MCPElicitationRequest>()
        var handlers = MCPClientHandlers()
        handlers.elicitation = { request in
            asked.record(request)
            if request.mode == .url { return .accept() }
            // The first question is answered, the second declined.
            return asked.all.filter { $0.mode == .form }.count == 1 ? .accept(["name": "Ada"]) : .decline
        }
        try await MCPErasPeer.with(.dual, transport, era: choice.era, handlers: handlers) { peer in
            let result = try await peer.mcp.callTool("ask_name")
            #expect(result.text == "hello Ada", "\(result)")
            #expect(!result.isError)
            #expect(peer.mcp.server?.era.isStateless == choice.expectsStateless)
            #expect(asked.all.count == 1, "\(asked.all)")
            let request = try #require(asked.all.first)
            #expect(request.mode == .form)
            #expect(request.message == MCP2Peer.nameQuestion)
            #expect(request.requestedSchema?["properties"]?["name"]?["type"] == "string")
            if peer.http != nil {
                let calls = try await peer.posts().filter { $0.rpcMethod == "tools/call" }
                let sent = peer.bodies.params(of: "tools/call")
                if choice.expectsStateless {
                    // The input_required round trip: the call again, with the answer and a new id.
                    #expect(calls.count == 2, "\(calls)")
                    #expect(calls.allSatisfy { $0.header("Mcp-Name") == "ask_name" }, "\(calls)")
                    #expect(sent.count == 2)
                    #expect(sent.first?["inputResponses"] == nil)
                    #expect(sent.last?["inputResponses"]?["name"]?["action"] == "accept", "\(sent)")
                    #expect(sent.last?["inputResponses"]?["name"]?["content"] == ["name": "Ada"], "\(sent)")
                    let ids = peer.bodies.messages.filter { $0["method"] == "tools/call" }.compactMap { $0["id"] }
                    #expect(Set(ids).count == 2, "\(ids)")
                } else {
                    // The server's own request, answered on the session: one call, and the answer posted.
                    #expect(calls.count == 1, "\(calls)")
                    let answers = peer.bodies.messages.filter { $0["method"] == nil && $0["result"] != nil }
                    #expect(answers.contains { $0["result"]?["content"] == ["name": "Ada"] }, "\(answers)")
                }
            }

            let declined = try await peer.mcp.callTool("ask_name")
            #expect(declined.text == "declined", "\(declined)")

            let opened = try await peer.mcp.callTool("open_url")
            #expect(opened.text == "accept", "\(opened)")
            let url = try #require(asked.all.last)
            #expect(url.mode == .url)
            #expect(url.url == MCP2Peer.consentURL)
            #expect(url.message == "Please give your consent.")
            // The SDK sends the elicitation's id in the handshake era only (2026-07-28 has no completion notification).
            #expect(url.elicitationId == (choice.expectsStateless ? nil : "consent-1"))
            #expect(asked.all.count == 3)
        }
    }

    @Test(
        "stateless era: the idle limit is the server's silence, not the handler's time (a user answering in 3 s, idle 2 s)",
        arguments: [MCPErasTransport.httpSSE, .stdio]
    )
    func idleLimitSpansNotTheHandlers(transport: MCPErasTransport) async throws {
        var handlers = MCPClientHandlers()
        handlers.elicitation = { _ in
            // A user who takes longer to fill the form than the call's idle limit.
            try await Task.sleep(for: .seconds(3))
            return .accept(["name": "Ada"])
        }
        try await MCPErasPeer.with(.dual, transport, era: nil, handlers: handlers) { peer in
            let limits = JSONRPCCallLimits(total: .seconds(60), idle: .seconds(2))
            let result = try await peer.mcp.callTool("ask_name", limits: limits, progress: .mcp).value
            #expect(result.text == "hello Ada", "\(result)")
            #expect(peer.mcp.server?.era.isStateless == true)
        }
    }

    @Test(
        "no elicitation handler (stateless era): the call fails saying which input the server asked for",
        arguments: MCPErasTransport.allCases
    )
    func noHandlerStateless(transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.dual, transport, era: nil) { peer in
            do throws(ParleyError) {
                let result = try await peer.mcp.callTool("ask_name")
                Issue.record("the call succeeded without an elicitation handler: \(result)")
            } catch {
                #expect(error.message.contains("elicitation/create"), "\(error.message)")
                #expect(error.message.contains("tools/call"), "\(error.message)")
            }
            #expect(peer.mcp.server?.era == .stateless)
            if peer.http != nil {
                // Asked once; nothing sent again without an answer.
                let calls = try await peer.posts().filter { $0.rpcMethod == "tools/call" }
                #expect(calls.count == 1, "\(calls)")
            }
        }
    }

    @Test(
        "no elicitation handler (handshake era): the server's request is refused, and the tool does not succeed",
        arguments: MCPErasTransport.allCases
    )
    func noHandlerHandshake(transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.dual, transport, era: .handshake) { peer in
            do throws(ParleyError) {
                let result = try await peer.mcp.callTool("ask_name")
                #expect(result.isError, "\(result)")
                #expect(!result.text.contains("hello"), "\(result)")
            } catch {
                #expect(error.kind == .jsonRPCError, "\(error)")
            }
        }
    }

    @Test(
        "sampling (sample) and roots (roots) are answered by their handlers",
        arguments: MCPErasChoice.allCases,
        MCPErasTransport.allCases
    )
    func samplingAndRoots(choice: MCPErasChoice, transport: MCPErasTransport) async throws {
        let asked = MCPErasAsked<MCPSamplingRequest>()
        var handlers = MCPClientHandlers()
        handlers.sampling = { request in
            asked.record(request)
            return MCPSamplingResult(text: "blue", model: "parley-test", stopReason: "endTurn")
        }
        handlers.roots = { [MCPRoot(uri: "file:///srv/parley", name: "parley"), MCPRoot(uri: "file:///tmp")] }
        try await MCPErasPeer.with(.dual, transport, era: choice.era, handlers: handlers) { peer in
            let result = try await peer.mcp.callTool("sample", arguments: ["prompt": "What colour is the sky?"])
            #expect(result.text == "blue", "\(result)")
            #expect(peer.mcp.server?.era.isStateless == choice.expectsStateless)
            let request = try #require(asked.all.first)
            #expect(request.maxTokens == 100)
            #expect(request.messages.first?["content"]?["text"] == "What colour is the sky?")
            #expect(request.tools == nil)

            let roots = try await peer.mcp.callTool("roots")
            #expect(roots.structuredContent == ["result": ["file:///srv/parley", "file:///tmp"]], "\(roots)")
        }
    }

    @Test(
        "the capabilities sent are the handlers set: in _meta (stateless) and in initialize (handshake)",
        arguments: MCPErasChoice.allCases
    )
    func advertisedCapabilities(choice: MCPErasChoice) async throws {
        func sent(_ peer: MCPErasPeer) -> JSONValue? {
            choice.expectsStateless
                ? peer.bodies.params(of: "tools/call").last?["_meta"]?["io.modelcontextprotocol/clientCapabilities"]
                : peer.bodies.params(of: "initialize").first?["capabilities"]
        }
        var some = MCPClientHandlers()
        some.elicitation = { _ in .decline }
        some.elicitationModes = [.form]
        try await MCPErasPeer.with(.dual, .httpJSON, era: choice.era, handlers: some) { peer in
            _ = try await peer.mcp.callTool("add", arguments: ["a": 1, "b": 2])
            #expect(sent(peer) == ["elicitation": ["form": [:]]], "\(String(describing: sent(peer)))")
        }
        var all = MCPClientHandlers()
        all.elicitation = { _ in .decline }
        all.sampling = { _ in MCPSamplingResult(text: "", model: "none") }
        all.samplingWithTools = true
        all.roots = { [] }
        try await MCPErasPeer.with(.dual, .httpJSON, era: choice.era, handlers: all) { peer in
            _ = try await peer.mcp.callTool("add", arguments: ["a": 1, "b": 2])
            let expected: JSONValue = [
                "elicitation": ["form": [:], "url": [:]], "sampling": ["tools": [:]], "roots": [:],
            ]
            #expect(sent(peer) == expected, "\(String(describing: sent(peer)))")
        }
        try await MCPErasPeer.with(.dual, .httpJSON, era: choice.era) { peer in
            _ = try await peer.mcp.callTool("add", arguments: ["a": 1, "b": 2])
            #expect(sent(peer) == [:], "\(String(describing: sent(peer)))")
        }
    }

    @Test(
        "sampling with tools: sampling.tools is advertised only with samplingWithTools, which the server checks (handshake)",
        arguments: MCPErasTransport.http
    )
    func samplingWithToolsCapability(transport: MCPErasTransport) async throws {
        let asked = MCPErasAsked<MCPSamplingRequest>()
        var handlers = MCPClientHandlers()
        handlers.sampling = { request in
            asked.record(request)
            return MCPSamplingResult(text: "sunny", model: "parley-test", stopReason: "endTurn")
        }
        try await MCPErasPeer.with(.dual, transport, era: .handshake, handlers: handlers) { peer in
            do throws(ParleyError) {
                let refused = try await peer.mcp.callTool("sample_with_tools", arguments: ["prompt": "weather?"])
                #expect(refused.isError, "\(refused)")
                #expect(refused.text.contains("sampling tools"), "\(refused)")
            } catch {
                #expect(error.message.contains("sampling tools"), "\(error)")
            }
            #expect(asked.all.isEmpty, "the server asked a client that does not take tools: \(asked.all)")
        }
        handlers.samplingWithTools = true
        try await MCPErasPeer.with(.dual, transport, era: .handshake, handlers: handlers) { peer in
            let result = try await peer.mcp.callTool("sample_with_tools", arguments: ["prompt": "weather?"])
            #expect(!result.isError, "\(result)")
            #expect(result.structuredContent?["model"] == "parley-test", "\(result)")
            let request = try #require(asked.all.first)
            #expect(request.tools?.first?["name"] == "weather")
            #expect(request.toolChoice?["mode"] == "auto")
        }
    }
}
