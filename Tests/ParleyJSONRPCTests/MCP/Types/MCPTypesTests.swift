import Foundation
import Parley
import ParleyJSONRPC
import Testing

/// The typed MCP values and methods against the wire shapes of protocols 2026-07-28 and 2025-11-25: realistic
/// results, missing optional members, hostile members (a `DecodingError`, never a crash), and the params sent.
@Suite("MCP types")
struct MCPTypesTests {
    /// `json` decoded as `T`.
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// `value` encoded, then read back as a `JSONValue` to compare members, not bytes.
    func encoded(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    // MARK: Resources

    @Test("A resources/list page of 2026-07-28, every member kept")
    func resourcePage2026() throws {
        let page = try decode(
            MCPResourcePage.self,
            #"""
            {"resultType": "complete", "ttlMs": 60000, "cacheScope": "public",
             "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "files", "version": "1.0"}},
             "resources": [
               {"uri": "file:///project/README.md", "name": "README.md", "title": "Project readme",
                "description": "The readme", "mimeType": "text/markdown", "size": 1024,
                "icons": [{"src": "https://example.com/md.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "light"}],
                "annotations": {"audience": ["user"], "priority": 0.8, "lastModified": "2025-01-12T15:00:58Z"},
                "_meta": {"example.com/tag": 1}},
               {"uri": "file:///project/logo.png", "name": "logo.png"}
             ],
             "nextCursor": "page-2"}
            """#
        )
        #expect(page.nextCursor == "page-2")
        #expect(page.resources.count == 2)
        let readme = try #require(page.resources.first)
        #expect(readme.uri == "file:///project/README.md")
        #expect(readme.name == "README.md")
        #expect(readme.title == "Project readme")
        #expect(readme.description == "The readme")
        #expect(readme.mimeType == "text/markdown")
        #expect(readme.size == 1024)
        #expect(readme.icons?.first?["src"] == "https://example.com/md.png")
        #expect(readme.icons?.first?["sizes"] == ["48x48"])
        #expect(readme.annotations?["priority"] == .double(0.8))
        #expect(readme.meta == ["example.com/tag": 1])
        let logo = page.resources[1]
        #expect(logo.title == nil && logo.mimeType == nil && logo.size == nil)
        #expect(logo.icons == nil && logo.annotations == nil && logo.meta == nil)
    }

    @Test("A resources/list page of 2025-11-25, and one without resources or cursor")
    func resourcePage2025() throws {
        let page = try decode(
            MCPResourcePage.self,
            #"{"resources": [{"uri": "mem://a", "name": "a", "mimeType": "text/plain"}]}"#
        )
        #expect(page.resources.map(\.uri) == ["mem://a"])
        #expect(page.nextCursor == nil)
        let empty = try decode(MCPResourcePage.self, "{}")
        #expect(empty.resources.isEmpty && empty.nextCursor == nil)
    }

    @Test("A resources/templates/list page")
    func templatePage() throws {
        let page = try decode(
            MCPResourceTemplatePage.self,
            #"""
            {"resourceTemplates": [
               {"uriTemplate": "file:///{path}", "name": "files", "title": "Project files",
                "description": "Any file", "mimeType": "application/octet-stream",
                "icons": [{"src": "data:image/png;base64,AAAA"}], "annotations": {"audience": ["assistant"]}},
               {"uriTemplate": "db://{table}/{id}", "name": "rows"}
             ], "nextCursor": "t2"}
            """#
        )
        #expect(page.resourceTemplates.map(\.uriTemplate) == ["file:///{path}", "db://{table}/{id}"])
        #expect(page.resourceTemplates[0].title == "Project files")
        #expect(page.resourceTemplates[0].icons?.count == 1)
        #expect(page.resourceTemplates[0].annotations?["audience"] == ["assistant"])
        #expect(page.resourceTemplates[1].description == nil)
        #expect(page.nextCursor == "t2")
        #expect(try decode(MCPResourceTemplatePage.self, "{}").resourceTemplates.isEmpty)
    }

    @Test("resources/read: text and blob contents, their bytes")
    func readResource() throws {
        let result = try decode(
            MCPReadResourceResult.self,
            #"""
            {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
             "contents": [
               {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "héllo"},
               {"uri": "file:///b.bin", "mimeType": "application/octet-stream", "blob": "AAEC/w==", "_meta": {"k": "v"}},
               {"uri": "file:///c.bin", "blob": "not base64!"},
               {"uri": "file:///d"}
             ]}
            """#
        )
        #expect(result.contents.count == 4)
        #expect(result.contents[0].text == "héllo")
        #expect(result.contents[0].data == Data("héllo".utf8))
        #expect(result.contents[1].blob == "AAEC/w==")
        #expect(result.contents[1].data == Data([0, 1, 2, 255]))
        #expect(result.contents[1].meta == ["k": "v"])
        #expect(result.contents[2].data == nil)
        #expect(result.contents[3].data == nil && result.contents[3].mimeType == nil)
        #expect(try decode(MCPReadResourceResult.self, "{}").contents.isEmpty)
    }

    // MARK: Prompts

    @Test("A prompts/list page: arguments, icons, and their absence")
    func promptPage() throws {
        let page = try decode(
            MCPPromptPage.self,
            #"""
            {"prompts": [
               {"name": "code_review", "title": "Request Code Review", "description": "Asks for a review",
                "arguments": [{"name": "code", "description": "The code", "required": true},
                              {"name": "language", "title": "Language"}],
                "icons": [{"src": "https://example.com/review.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}],
                "_meta": {"x": true}},
               {"name": "hello"}
             ]}
            """#
        )
        let review = try #require(page.prompts.first)
        #expect(review.title == "Request Code Review")
        #expect(review.arguments.map(\.name) == ["code", "language"])
        #expect(review.arguments[0].required)
        #expect(review.arguments[0].description == "The code")
        #expect(!review.arguments[1].required)
        #expect(review.arguments[1].title == "Language")
        #expect(review.icons?.count == 1)
        #expect(review.meta == ["x": true])
        #expect(page.prompts[1].arguments.isEmpty && page.prompts[1].icons == nil)
        #expect(page.nextCursor == nil)
        #expect(try decode(MCPPromptPage.self, "{}").prompts.isEmpty)
    }

    @Test("prompts/get: messages and the text of text blocks")
    func promptResult() throws {
        let result = try decode(
            MCPPromptResult.self,
            #"""
            {"resultType": "complete", "description": "Code review prompt",
             "messages": [
               {"role": "user", "content": {"type": "text", "text": "Please review:\ndef f(): pass"}},
               {"role": "assistant", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
               {"role": "user", "content": {"type": "resource",
                 "resource": {"uri": "file:///a.py", "mimeType": "text/x-python", "text": "x = 1"}}}
             ]}
            """#
        )
        #expect(result.description == "Code review prompt")
        #expect(result.messages.map(\.role) == ["user", "assistant", "user"])
        #expect(result.messages[0].text == "Please review:\ndef f(): pass")
        #expect(result.messages[1].text == nil)
        #expect(result.messages[1].content["mimeType"] == "image/png")
        #expect(result.messages[2].content["resource"]?["uri"] == "file:///a.py")
        let bare = try decode(MCPPromptResult.self, "{}")
        #expect(bare.description == nil && bare.messages.isEmpty)
    }

    // MARK: Completion, logging, discovery

    @Test("completion/complete: the completion member, of either era")
    func completion() throws {
        let full = try decode(
            MCPCompletion.self,
            #"{"resultType": "complete", "completion": {"values": ["python", "pytorch"], "total": 10, "hasMore": true}}"#
        )
        #expect(full.values == ["python", "pytorch"])
        #expect(full.total == 10)
        #expect(full.hasMore)
        let bare = try decode(MCPCompletion.self, #"{"completion": {"values": []}}"#)
        #expect(bare.values.isEmpty && bare.total == nil && !bare.hasMore)
        #expect(try decode(MCPCompletion.self, #"{"completion": {}}"#).values.isEmpty)
        #expect(throws: DecodingError.self) { try decode(MCPCompletion.self, #"{"values": ["a"]}"#) }
    }

    @Test("notifications/message params")
    func logMessage() throws {
        let text = try decode(MCPLogMessage.self, #"{"level": "error", "logger": "database", "data": "Connection failed"}"#)
        #expect(text.level == "error" && text.logger == "database" && text.data == "Connection failed")
        let object = try decode(
            MCPLogMessage.self,
            #"{"level": "info", "data": {"error": "timeout", "details": {"host": "localhost", "port": 5432}}}"#
        )
        #expect(object.logger == nil)
        #expect(object.data["details"]?["port"] == 5432)
        #expect(try decode(MCPLogMessage.self, #"{"level": "debug"}"#).data == .null)
    }

    @Test("server/discover: versions, capabilities, serverInfo from _meta, cache hints")
    func discover() throws {
        let result = try decode(
            MCPDiscoverResult.self,
            #"""
            {"resultType": "complete", "supportedVersions": ["2026-07-28", "2025-11-25"],
             "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true}, "logging": {}},
             "instructions": "Use the search tool first.", "ttlMs": 300000, "cacheScope": "public",
             "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "example-server", "version": "2.1.0",
                                                              "title": "Example", "websiteUrl": "https://example.com"}}}
            """#
        )
        #expect(result.supportedVersions == ["2026-07-28", "2025-11-25"])
        #expect(result.capabilities["tools"]?["listChanged"] == true)
        #expect(result.serverInfo == MCPImplementation(name: "example-server", version: "2.1.0"))
        #expect(result.instructions == "Use the search tool first.")
        #expect(result.ttlMs == 300_000)
        #expect(result.cacheScope == "public")
        #expect(result.meta?["io.modelcontextprotocol/serverInfo"]?["title"] == "Example")

        let bare = try decode(MCPDiscoverResult.self, "{}")
        #expect(bare.supportedVersions.isEmpty && bare.capabilities == [:] && bare.serverInfo == nil)
        #expect(bare.ttlMs == nil && bare.cacheScope == nil && bare.instructions == nil)

        let odd = try decode(
            MCPDiscoverResult.self,
            #"{"supportedVersions": ["2026-07-28"], "capabilities": {}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": 7}}}"#
        )
        #expect(odd.serverInfo == nil)
        #expect(try decode(MCPDiscoverResult.self, #"{"_meta": "x"}"#).serverInfo == nil)
    }

    // MARK: Tools

    @Test("A tool of 2025-11-25: icons, annotations, execution, _meta, and a $ref kept as sent")
    func tool2025() throws {
        let page = try decode(
            MCPToolPage.self,
            #"""
            {"tools": [{"name": "get_weather", "title": "Weather", "description": "Current weather",
              "inputSchema": {"type": "object", "properties": {"where": {"$ref": "#/$defs/place"}},
                              "$defs": {"place": {"type": "string"}}, "required": ["where"]},
              "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}}},
              "icons": [{"src": "https://example.com/sun.png"}],
              "annotations": {"title": "Weather", "readOnlyHint": true, "openWorldHint": true},
              "execution": {"taskSupport": "optional"},
              "_meta": {"example.com/ui": {"hidden": false}}}]}
            """#
        )
        let tool = try #require(page.tools.first)
        #expect(tool.inputSchema?["properties"]?["where"] == ["$ref": "#/$defs/place"])
        #expect(tool.inputSchema?["$defs"]?["place"] == ["type": "string"])
        #expect(tool.outputSchema?["type"] == "object")
        #expect(tool.icons == [["src": "https://example.com/sun.png"]])
        #expect(tool.annotations?["readOnlyHint"] == true)
        #expect(tool.execution == ["taskSupport": "optional"])
        #expect(tool.meta == ["example.com/ui": ["hidden": false]])
    }

    @Test("A tool of 2026-07-28, and a bare one")
    func tool2026() throws {
        let page = try decode(
            MCPToolPage.self,
            #"""
            {"resultType": "complete", "ttlMs": 1000, "cacheScope": "public",
             "tools": [{"name": "search", "inputSchema": {"type": "object",
                          "properties": {"q": {"type": "string", "x-mcp-header": "X-Query"}}}},
                       {"name": "bare"}]}
            """#
        )
        #expect(page.tools[0].inputSchema?["properties"]?["q"]?["x-mcp-header"] == "X-Query")
        #expect(page.tools[0].execution == nil && page.tools[0].meta == nil)
        let bare = page.tools[1]
        #expect(bare.inputSchema == nil && bare.icons == nil && bare.annotations == nil && bare.title == nil)
    }

    // MARK: The server's requests and the client's answers

    @Test("sampling/createMessage params, of either era")
    func samplingRequest() throws {
        let request = try decode(
            MCPSamplingRequest.self,
            #"""
            {"messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}},
                          {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {}}]}],
             "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "intelligencePriority": 0.8, "speedPriority": 0.5},
             "systemPrompt": "You are a helpful assistant.", "maxTokens": 100, "temperature": 0.7,
             "stopSequences": ["\n\n"], "includeContext": "none",
             "tools": [{"name": "lookup", "inputSchema": {"type": "object"}}], "toolChoice": {"mode": "auto"},
             "metadata": {"provider": {"x": 1}}, "_meta": {"progressToken": 3}}
            """#
        )
        #expect(request.messages.count == 2)
        #expect(request.messages[0]["content"]?["text"] == "What is the capital of France?")
        #expect(request.messages[1]["content"]?[0]?["type"] == "tool_use")
        #expect(request.modelPreferences?["hints"]?[0]?["name"] == "claude-3-sonnet")
        #expect(request.systemPrompt == "You are a helpful assistant.")
        #expect(request.maxTokens == 100)
        #expect(request.temperature == 0.7)
        #expect(request.stopSequences == ["\n\n"])
        #expect(request.includeContext == "none")
        #expect(request.tools?.first?["name"] == "lookup")
        #expect(request.toolChoice == ["mode": "auto"])
        #expect(request.metadata == ["provider": ["x": 1]])

        let bare = try decode(MCPSamplingRequest.self, #"{"messages": [], "maxTokens": 5}"#)
        #expect(bare == MCPSamplingRequest(messages: [], maxTokens: 5))
        #expect(throws: DecodingError.self) { try decode(MCPSamplingRequest.self, #"{"messages": []}"#) }
    }

    @Test("The sampling answer: role assistant by default, stopReason left out when nil")
    func samplingResult() throws {
        #expect(
            try encoded(MCPSamplingResult(text: "Paris", model: "claude-3-sonnet-20240307", stopReason: "endTurn"))
                == [
                    "role": "assistant", "content": ["type": "text", "text": "Paris"],
                    "model": "claude-3-sonnet-20240307", "stopReason": "endTurn",
                ]
        )
        #expect(
            try encoded(MCPSamplingResult(text: "Paris", model: "m"))
                == ["role": "assistant", "content": ["type": "text", "text": "Paris"], "model": "m"]
        )
        let image = MCPSamplingResult(
            role: "user",
            content: ["type": "image", "data": "AAAA", "mimeType": "image/png"],
            model: "m"
        )
        #expect(try encoded(image)["role"] == "user")
        let decoded = try decode(MCPSamplingResult.self, #"{"content": {"type": "text", "text": "hi"}, "model": "m"}"#)
        #expect(decoded == MCPSamplingResult(text: "hi", model: "m"))
    }

    @Test("elicitation/create params: form (both eras), URL with elicitationId, an unknown mode kept")
    func elicitationRequest() throws {
        let form = try decode(
            MCPElicitationRequest.self,
            #"""
            {"mode": "form", "message": "Please provide your GitHub username",
             "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
            """#
        )
        #expect(form.mode == .form)
        #expect(form.message == "Please provide your GitHub username")
        #expect(form.requestedSchema?["required"] == ["name"])
        #expect(form.url == nil && form.elicitationId == nil)

        let implicit = try decode(
            MCPElicitationRequest.self,
            #"{"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}"#
        )
        #expect(implicit.mode == .form)

        let url = try decode(
            MCPElicitationRequest.self,
            #"""
            {"mode": "url", "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
             "url": "https://mcp.example.com/ui/set_api_key", "message": "Please provide your API key."}
            """#
        )
        #expect(url.mode == .url)
        #expect(url.url == "https://mcp.example.com/ui/set_api_key")
        #expect(url.elicitationId == "550e8400-e29b-41d4-a716-446655440000")
        #expect(url.requestedSchema == nil)

        let future = try decode(MCPElicitationRequest.self, #"{"mode": "voice", "message": "Say it"}"#)
        #expect(future.mode == MCPElicitationMode(rawValue: "voice"))
        #expect(throws: DecodingError.self) { try decode(MCPElicitationRequest.self, #"{"mode": "form"}"#) }
    }

    @Test("The elicitation answer: accept with and without content, decline, cancel")
    func elicitationResult() throws {
        #expect(
            try encoded(MCPElicitationResult.accept(["name": "octocat", "age": 30, "tags": ["a", "b"]]))
                == ["action": "accept", "content": ["name": "octocat", "age": 30, "tags": ["a", "b"]]]
        )
        #expect(try encoded(MCPElicitationResult.accept()) == ["action": "accept"])
        #expect(try encoded(MCPElicitationResult.decline) == ["action": "decline"])
        #expect(try encoded(MCPElicitationResult.cancel) == ["action": "cancel"])
        let decoded = try decode(MCPElicitationResult.self, #"{"action": "accept", "content": {"ok": true}}"#)
        #expect(decoded == .accept(["ok": true]))
    }

    @Test("The roots answer: {roots: [{uri, name?}]}")
    func roots() throws {
        let answer = MCPListRootsResult(roots: [
            MCPRoot(uri: "file:///home/user/projects/myproject", name: "My Project"), MCPRoot(uri: "file:///tmp"),
        ])
        #expect(
            try encoded(answer)
                == ["roots": [["uri": "file:///home/user/projects/myproject", "name": "My Project"], ["uri": "file:///tmp"]]]
        )
        #expect(try decode(MCPListRootsResult.self, "{}").roots.isEmpty)
        #expect(try decode(MCPListRootsResult.self, #"{"roots": [{"uri": "file:///a"}]}"#).roots == [MCPRoot(uri: "file:///a")])
    }

    // MARK: Methods

    @Test("The methods' names, params and repeatability")
    func methods() {
        #expect(MCPListResources.name == "resources/list" && MCPListResources().params == [:])
        #expect(MCPListResources(cursor: "c").params == ["cursor": "c"])
        #expect(MCPListResourceTemplates.name == "resources/templates/list")
        #expect(MCPListResourceTemplates(cursor: "c").params == ["cursor": "c"])
        #expect(MCPListPrompts.name == "prompts/list" && MCPListPrompts().params == [:])
        #expect(MCPReadResource.name == "resources/read")
        #expect(MCPReadResource(uri: "file:///a").params == ["uri": "file:///a"])
        #expect(MCPGetPrompt.name == "prompts/get")
        #expect(MCPGetPrompt(name: "hello").params == ["name": "hello"])
        #expect(MCPGetPrompt(name: "review", arguments: ["code": "x"]).params == ["name": "review", "arguments": ["code": "x"]])
        #expect(MCPSetLogLevel.name == "logging/setLevel" && MCPSetLogLevel(level: "warning").params == ["level": "warning"])
        #expect(MCPSubscribeResource.name == "resources/subscribe")
        #expect(MCPSubscribeResource(uri: "file:///a").params == ["uri": "file:///a"])
        #expect(MCPUnsubscribeResource.name == "resources/unsubscribe")
        #expect(MCPUnsubscribeResource(uri: "file:///a").params == ["uri": "file:///a"])
        #expect(MCPDiscover.name == "server/discover" && MCPDiscover().params == [:])
        #expect(MCPPing.name == "ping" && MCPPing().params == [:])

        #expect(MCPListResources().isRepeatable && MCPListResourceTemplates().isRepeatable && MCPListPrompts().isRepeatable)
        #expect(MCPReadResource(uri: "a").isRepeatable && MCPGetPrompt(name: "a").isRepeatable)
        #expect(MCPComplete(.prompt("a"), argument: "b", value: "c").isRepeatable)
        #expect(MCPDiscover().isRepeatable && MCPPing().isRepeatable)
        #expect(!MCPSetLogLevel(level: "info").isRepeatable)
        #expect(!MCPSubscribeResource(uri: "a").isRepeatable && !MCPUnsubscribeResource(uri: "a").isRepeatable)
    }

    @Test("completion/complete params: the ref, the argument, the context")
    func completeParams() throws {
        #expect(MCPComplete.name == "completion/complete")
        #expect(
            MCPComplete(.prompt("code_review"), argument: "language", value: "py").params
                == ["ref": ["type": "ref/prompt", "name": "code_review"], "argument": ["name": "language", "value": "py"]]
        )
        #expect(
            MCPComplete(
                .resourceTemplate("github://repos/{owner}/{repo}"),
                argument: "repo",
                value: "par",
                context: ["owner": "apple"]
            )
            .params
                == [
                    "ref": ["type": "ref/resource", "uri": "github://repos/{owner}/{repo}"],
                    "argument": ["name": "repo", "value": "par"],
                    "context": ["arguments": ["owner": "apple"]],
                ]
        )
        #expect(try encoded(MCPCompletionReference.prompt("p")) == ["type": "ref/prompt", "name": "p"])
    }

    @Test("An empty result accepts whatever the server answers")
    func emptyResult() throws {
        #expect(try decode(MCPEmptyResult.self, "{}") == MCPEmptyResult())
        #expect(try decode(MCPEmptyResult.self, #"{"_meta": {"a": 1}, "resultType": "complete"}"#) == MCPEmptyResult())
        #expect(try decode(MCPEmptyResult.self, "null") == MCPEmptyResult())
    }

    // MARK: Hostile input

    /// Arrays nested 600 deep, past the 512 levels a `JSONValue` (and `JSONDecoder`) takes.
    static let deepArray = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)

    /// Objects nested 600 deep.
    static let deepObject = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)

    /// A document that must not decode as the type named `type`; named in the test log by its first 80 characters.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let type: String
        let json: String
        var testDescription: String { "\(type) \(json.prefix(80))" }
    }

    /// Members of the wrong type, missing required members, and nesting past the limit.
    static let hostile: [Hostile] = [
        Hostile(type: "MCPResourcePage", json: #"{"resources": [{"uri": "a", "name": 5}]}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": [{"uri": null, "name": "a"}]}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": [{"uri": "a", "name": "a", "size": "big"}]}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": [{"uri": "a", "name": "a", "size": 1.5}]}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": [{"uri": "a", "name": "a", "size": 1e300}]}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": [{"uri": "a", "name": "a", "icons": {"src": "x"}}]}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": {"uri": "a"}}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": [], "nextCursor": 3}"#),
        Hostile(type: "MCPResourcePage", json: #"[]"#),
        Hostile(type: "MCPResourceTemplatePage", json: #"{"resourceTemplates": [{"name": "a"}]}"#),
        Hostile(type: "MCPReadResourceResult", json: #"{"contents": [{"uri": "a", "blob": 12}]}"#),
        Hostile(type: "MCPReadResourceResult", json: #"{"contents": "text"}"#),
        Hostile(type: "MCPPromptPage", json: #"{"prompts": [{"name": "a", "arguments": {"name": "b"}}]}"#),
        Hostile(type: "MCPPromptPage", json: #"{"prompts": [{"name": "a", "arguments": [{"name": "b", "required": "yes"}]}]}"#),
        Hostile(type: "MCPPromptResult", json: #"{"messages": [{"role": "user"}]}"#),
        Hostile(type: "MCPPromptResult", json: #"{"messages": {"role": "user"}}"#),
        Hostile(type: "MCPCompletion", json: #"{"completion": {"values": [1, 2]}}"#),
        Hostile(type: "MCPCompletion", json: #"{"completion": "python"}"#),
        Hostile(type: "MCPCompletion", json: #"{"completion": {"values": [], "hasMore": "no"}}"#),
        Hostile(type: "MCPLogMessage", json: #"{"data": "x"}"#),
        Hostile(type: "MCPLogMessage", json: #"{"level": 3, "data": "x"}"#),
        Hostile(type: "MCPDiscoverResult", json: #"{"supportedVersions": "2026-07-28"}"#),
        Hostile(type: "MCPDiscoverResult", json: #"{"ttlMs": "soon"}"#),
        Hostile(type: "MCPToolPage", json: #"{"tools": [{"name": "a", "icons": "x"}]}"#),
        Hostile(type: "MCPSamplingRequest", json: #"{"messages": [], "maxTokens": "many"}"#),
        Hostile(type: "MCPSamplingRequest", json: #"{"messages": "hi", "maxTokens": 1}"#),
        Hostile(type: "MCPSamplingRequest", json: #"{"messages": [], "maxTokens": 1, "stopSequences": [1]}"#),
        Hostile(type: "MCPElicitationRequest", json: #"{"mode": 1, "message": "m"}"#),
        Hostile(type: "MCPElicitationRequest", json: #"{"message": ["m"]}"#),
        Hostile(type: "MCPElicitationResult", json: #"{"content": {}}"#),
        Hostile(type: "MCPListRootsResult", json: #"{"roots": [{"name": "x"}]}"#),
        Hostile(type: "MCPResourcePage", json: #"{"resources": [{"uri": "a", "name": "a", "_meta": "# + deepArray + "}]}"),
        Hostile(type: "MCPToolPage", json: #"{"tools": [{"name": "a", "inputSchema": "# + deepObject + "}]}"),
    ]

    /// Decodes `json` as the type named `type`.
    func decodeNamed(_ type: String, _ json: String) throws {
        switch type {
        case "MCPResourcePage": _ = try decode(MCPResourcePage.self, json)
        case "MCPResourceTemplatePage": _ = try decode(MCPResourceTemplatePage.self, json)
        case "MCPReadResourceResult": _ = try decode(MCPReadResourceResult.self, json)
        case "MCPPromptPage": _ = try decode(MCPPromptPage.self, json)
        case "MCPPromptResult": _ = try decode(MCPPromptResult.self, json)
        case "MCPCompletion": _ = try decode(MCPCompletion.self, json)
        case "MCPLogMessage": _ = try decode(MCPLogMessage.self, json)
        case "MCPDiscoverResult": _ = try decode(MCPDiscoverResult.self, json)
        case "MCPToolPage": _ = try decode(MCPToolPage.self, json)
        case "MCPSamplingRequest": _ = try decode(MCPSamplingRequest.self, json)
        case "MCPElicitationRequest": _ = try decode(MCPElicitationRequest.self, json)
        case "MCPElicitationResult": _ = try decode(MCPElicitationResult.self, json)
        case "MCPListRootsResult": _ = try decode(MCPListRootsResult.self, json)
        default: Issue.record("no type \(type)")
        }
    }

    @Test("Hostile members: a DecodingError, never a crash", arguments: hostile)
    func hostileInput(_ hostile: Hostile) {
        #expect(throws: DecodingError.self) { try decodeNamed(hostile.type, hostile.json) }
    }
}
