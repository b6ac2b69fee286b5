// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Logging
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

// The Swift blocks of Sources/ParleyJSONRPC/ParleyJSONRPC.docc/MCP.md, run against the MCP servers that
// scripts/start-peers starts: the MCP Python SDK 2.3 server of both eras (peers/mcp2_peer.py, SSE answers; the same
// behind the wrapper that refuses the handshake era; launched over stdio too) and the SDK 1.30 server of the handshake
// era (peers/mcp_peer.py). The sections that need what those servers do not do (results marked cacheable, a tool with
// an invalid x-mcp-header annotation, event streams that break) run against `DocCMCP.ArticlePeer`, a server on the
// same SDK 2.3 that this file starts.
enum DocCMCP {
    static let environment = ProcessInfo.processInfo.environment
    static let dualURL = environment["PARLEY_MCP2_SSE_URL"].flatMap(URL.init(string:))
    static let modernURL = environment["PARLEY_MCP2_MODERN_URL"].flatMap(URL.init(string:))
    static let legacyURL = environment["PARLEY_MCP_SSE_URL"].flatMap(URL.init(string:))
    static let python = environment["PARLEY_MCP2_PYTHON"]
    static let script = environment["PARLEY_MCP2_PEER"]
    static var isAvailable: Bool {
        dualURL != nil && modernURL != nil && legacyURL != nil && python != nil && script != nil
    }

    /// The article's declarations of the servers it talks to: compiled, not run (the suite takes the peers that
    /// scripts/start-peers starts).
    static func declarationsOfTheArticle() {
let serverURL = URL(string: "http://127.0.0.1:8000/mcp")!           // mcp2_peer.py http sse: both eras
let handshakeServerURL = URL(string: "http://127.0.0.1:8001/mcp")!  // mcp_peer.py http sse: the handshake era only
let statelessServerURL = URL(string: "http://127.0.0.1:8002/mcp")!  // mcp2_peer.py http sse --modern-only
let python = URL(filePath: ".venv-mcp2/bin/python")                 // a Python with mcp 2.3 installed
let script = "peers/mcp2_peer.py"                                   // in a checkout of Parley
        _ = (serverURL, handshakeServerURL, statelessServerURL, python, script)
    }

    /// `GET /requests` of a server that records the requests it receives (the 2.x peers, the article's peer).
    struct RecordedRequests: Endpoint {
        typealias Response = [JSONValue]
        var path: Path { "/requests" }
    }

    /// The requests the server at `url` recorded, oldest first.
    static func recorded(at url: URL) async throws -> [JSONValue] {
        try await Client(baseURL: url.deletingLastPathComponent()).send(RecordedRequests())
    }

    /// A server on the MCP Python SDK 2.3 for the article's sections that the shared peers do not cover, started over
    /// Streamable HTTP (SSE answers) on an ephemeral port of 127.0.0.1.
    final class ArticlePeer {
        let url: URL
        private let process: Process
        private let folder: URL

        private init(url: URL, process: Process, folder: URL) {
            self.url = url
            self.process = process
            self.folder = folder
        }

        static func start() async throws -> ArticlePeer {
            let folder = FileManager.default.temporaryDirectory.appending(path: "parley-docc-mcp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let source = folder.appending(path: "article_peer.py")
            let log = folder.appending(path: "article_peer.log")
            try Data(DocCMCP.articlePeerSource.utf8).write(to: source)
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(python))
            process.arguments = [source.path]
            let output = try FileHandle(forWritingTo: log)
            process.standardOutput = output
            process.standardError = output
            try process.run()
            for _ in 0..<300 {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
                    let url = URL(string: String(line.dropFirst("listening on ".count)))
                {
                    return ArticlePeer(url: url, process: process, folder: folder)
                }
                guard process.isRunning else { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            kill(process.processIdentifier, SIGKILL)
            throw ParleyError(.transport, "the article's MCP peer did not start: \(text)")
        }

        /// Kills the server: uvicorn's graceful shutdown (SIGTERM) can wait for ever on a stream the client left open.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The article's peer: results of resources/read marked good for 60 s (`counter://reads` counts its reads), a tool
    /// `tagged` whose x-mcp-header annotation sits on an array, and event streams that end before their answer (every
    /// tools/call of `flaky`, every other resources/read of `flaky://read`). `GET /requests` lists what it received.
    static let articlePeerSource = #"""
        import asyncio, json, socket, warnings
        from typing import Any
        from mcp.server.caching import CacheHint
        from mcp.server.mcpserver import MCPServer
        from mcp_types import ListToolsResult, PaginatedRequestParams, Tool

        server = MCPServer("parley-article-peer", version="1.0", log_level="WARNING",
                           cache_hints={"resources/read": CacheHint(ttl_ms=60_000, scope="private")})
        reads = 0

        @server.resource("counter://reads", name="reads", mime_type="text/plain")
        def counter() -> str:
            global reads
            reads += 1
            return f"read {reads} times"

        @server.resource("flaky://read", name="flaky", mime_type="text/plain")
        def flaky_read() -> str:
            return "read at last"

        @server.tool(description="Adds two integers.")
        def add(a: int, b: int) -> int:
            return a + b

        @server.tool(description="Its event stream always breaks before the answer.")
        def flaky() -> str:
            return "never seen"

        TAGGED = Tool(name="tagged", description="Its x-mcp-header sits on an array, which the specification forbids.",
                      input_schema={"type": "object", "properties": {
                          "tags": {"type": "array", "items": {"type": "string"}, "x-mcp-header": "Tags"}}})

        async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
            return ListToolsResult(tools=[*(await server.list_tools()), TAGGED])

        server._lowlevel_server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)

        seen: list[dict[str, Any]] = []
        flaky_reads = 0

        def breaks(message: Any) -> bool:
            global flaky_reads
            if not isinstance(message, dict):
                return False
            params = message.get("params") or {}
            if message.get("method") == "tools/call" and params.get("name") == "flaky":
                return True
            if message.get("method") == "resources/read" and params.get("uri") == "flaky://read":
                flaky_reads += 1
                return flaky_reads % 2 == 1
            return False

        def middleware(app: Any) -> Any:
            async def handle(scope: Any, receive: Any, send: Any) -> None:
                if scope["type"] != "http":
                    return await app(scope, receive, send)
                if scope["path"] == "/requests":
                    body = json.dumps(seen).encode()
                    await send({"type": "http.response.start", "status": 200,
                                "headers": [(b"content-type", b"application/json")]})
                    return await send({"type": "http.response.body", "body": body})
                body = b""
                if scope["method"] == "POST":
                    while True:
                        event = await receive()
                        body += event.get("body", b"")
                        if not event.get("more_body", False):
                            break
                try:
                    message = json.loads(body) if body else None
                except ValueError:
                    message = None
                if isinstance(message, dict):
                    params = message.get("params") or {}
                    seen.append({"method": message.get("method"), "id": message.get("id"),
                                 "name": params.get("name") or params.get("uri")})
                if breaks(message):
                    await send({"type": "http.response.start", "status": 200,
                                "headers": [(b"content-type", b"text/event-stream")]})
                    await send({"type": "http.response.body", "body": b"id: 1\ndata: \n\n", "more_body": True})
                    return await send({"type": "http.response.body", "body": b"", "more_body": False})
                replayed = False
                async def replay() -> Any:
                    nonlocal replayed
                    if not replayed:
                        replayed = True
                        return {"type": "http.request", "body": body, "more_body": False}
                    return await receive()
                await app(scope, replay if scope["method"] == "POST" else receive, send)
            return handle

        import uvicorn
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
        config = uvicorn.Config(middleware(server.streamable_http_app()), log_level="warning",
                                timeout_graceful_shutdown=1, timeout_keep_alive=75)
        asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
        """#

    @Suite("DocC: Model Context Protocol", .enabled(if: isAvailable, "scripts/start-peers sets PARLEY_MCP*"), .timeLimit(.minutes(2)))
    struct Examples {
        @Test("the eras: detected, remembered, pinned, configured; what the stateless era sends; send and discover")
        func eras() async throws {
            let serverURL = try #require(dualURL)
            let handshakeServerURL = try #require(legacyURL)

let channel = MCPStreamableHTTPChannel(client: Client(baseURL: serverURL))
let mcp = MCPClient(channel: channel, timeout: .seconds(30))
let server = try await mcp.connect()
print(server.era, server.serverInfo?.name ?? "")        // 2026-07-28 (stateless) parley-peer2
print(server.supportedVersions, channel.sessionID == nil) // ["2026-07-28"] true: no session
            #expect(server.era == .stateless)
            #expect(server.era.description == "2026-07-28 (stateless)")
            #expect(server.serverInfo?.name == "parley-peer2")
            #expect(server.supportedVersions == ["2026-07-28"])
            #expect(channel.sessionID == nil)

let older = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: handshakeServerURL)))
let olderServer = try await older.connect()                // server/discover refused: initialize
print(olderServer.era, olderServer.serverInfo?.name ?? "") // 2025-11-25 (handshake) parley-peer
print(older.server == olderServer)                         // true: remembered
            #expect(olderServer.era.description == "2025-11-25 (handshake)")
            #expect(olderServer.serverInfo?.name == "parley-peer")
            #expect(older.server == olderServer)

let pinned = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), era: .handshake)
let pinnedServer = try await pinned.connect()
print(pinnedServer.era)                                     // 2025-11-25 (handshake)
            #expect(pinnedServer.era == .handshake)
            #expect(pinnedServer.serverInfo?.name == "parley-peer2")

var configuration = MCPClient.Configuration()
configuration.clientInfo = MCPImplementation(name: "my-agent", version: "2.1")
configuration.era = MCPEra("2025-06-18")                    // nil (the default) detects
configuration.discoveryTimeout = .seconds(5)
let configured = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), configuration: configuration)
let configuredServer = try await configured.connect()
print(configuredServer.era)                                 // 2025-06-18 (handshake)
            #expect(configuredServer.era.description == "2025-06-18 (handshake)")

_ = try await mcp.listTools()                                       // learns tenant_echo's x-mcp-header: Tenant
let echo = try await mcp.callTool("tenant_echo", arguments: ["tenant": "Zürich", "region": "eu"])
print(echo.structuredContent?["header"]?.stringValue ?? "")         // =?base64?WsO8cmljaA==?=
            #expect(echo.structuredContent?["header"] == "=?base64?WsO8cmljaA==?=")
            #expect(echo.structuredContent?["tenant"] == "Zürich")
            // What went on the wire: the routing headers, no session.
            let call = try #require(
                try await recorded(at: serverURL).last {
                    $0["rpcMethod"] == "tools/call" && $0["headers"]?["mcp-param-tenant"] == "=?base64?WsO8cmljaA==?="
                }
            )
            #expect(call["headers"]?["mcp-protocol-version"] == "2026-07-28")
            #expect(call["headers"]?["mcp-method"] == "tools/call")
            #expect(call["headers"]?["mcp-name"] == "tenant_echo")
            #expect(call["headers"]?["mcp-session-id"] == nil)

let page = try await mcp.send(MCPListPrompts())                     // one page, as the server sent it
print(page.prompts.map(\.name), page.nextCursor ?? "last page")     // ["greet"] last page
let discovery = try await mcp.discover()
print(discovery.supportedVersions, discovery.capabilities["tools"] ?? [:])   // ["2026-07-28"] {"listChanged":true}
            #expect(page.prompts.map(\.name) == ["greet"])
            #expect(page.nextCursor == nil)
            #expect(discovery.supportedVersions == ["2026-07-28"])
            #expect(discovery.capabilities["tools"] == ["listChanged": true])
            #expect(discovery.serverInfo?.name == "parley-peer2")
        }

        @Test("tools: list, call, a failed tool; progress; call limits; a timeout in the stateless era")
        func tools() async throws {
            let serverURL = try #require(dualURL)
            let mcp = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), timeout: .seconds(30))

for tool in try await mcp.listTools() { print(tool.name, tool.description ?? "") }   // add Adds two integers. …
let sum = try await mcp.callTool("add", arguments: ["a": 2, "b": 3])
print(sum.structuredContent ?? [:], sum.isError)                    // {"result":5} false
let failed = try await mcp.callTool("fail")
print(failed.isError, failed.text)                                  // true Error executing tool fail: this tool always fails
            #expect(try await mcp.listTools().first?.name == "add")
            #expect(try await mcp.listTools().first?.description == "Adds two integers.")
            #expect(sum.structuredContent == ["result": 5])
            #expect(!sum.isError)
            #expect(failed.isError)
            #expect(failed.text.contains("this tool always fails"), "\(failed.text)")

let counting = mcp.callTool("count", arguments: ["n": 3], progress: .mcp)
for await update in counting.progress {
    print(update.progress ?? 0, "of", update.total ?? 0, update.message ?? "")   // 1.0 of 3.0 step 1 of 3 …
}
let counted = try await counting.value
print(counted.structuredContent ?? [:])                             // {"result":"counted to 3"}
            #expect(counted.structuredContent == ["result": "counted to 3"])
            var updates: [JSONRPCProgressUpdate] = []
            let recount = mcp.callTool("count", arguments: ["n": 3], progress: .mcp)
            for await update in recount.progress { updates.append(update) }
            _ = try await recount.value
            #expect(updates.map(\.progress) == [1, 2, 3])
            #expect(updates.map(\.total) == [3, 3, 3])
            #expect(updates.first?.message == "step 1 of 3")

            let started = ContinuousClock.now
let limits = JSONRPCCallLimits(total: .seconds(60), idle: .seconds(2))
let ticking = mcp.callTool("tick", arguments: ["n": 4, "interval": 0.5], limits: limits, progress: .mcp)
let ticked = try await ticking.value                                // 2 s in all, never 2 s without progress
print(ticked.text)                                                  // ticked 4 times
let silent = mcp.callTool("wait", arguments: ["seconds": 5], limits: limits, progress: .mcp)
do {
    _ = try await silent.value
} catch {
    print(error.kind)                                               // timeout: 2 s without progress
}
            #expect(ticked.text == "ticked 4 times")
            let again = mcp.callTool("wait", arguments: ["seconds": 5], limits: limits, progress: .mcp)
            do {
                let result = try await again.value
                Issue.record("a silent call outlived its idle limit: \(result)")
            } catch {
                #expect(error.kind == .timeout)
                #expect(error.message.contains("idle"), "\(error.message)")
            }
            #expect(ContinuousClock.now - started < .seconds(10), "the idle limit, not the tool's 5 s, ended the silent calls")

do {
    _ = try await mcp.callTool("wait", arguments: ["seconds": 60], timeout: .milliseconds(200))
} catch {
    print(error.kind)                                              // timeout: its stream closed
}
            do {
                let result = try await mcp.callTool("wait", arguments: ["seconds": 60], timeout: .milliseconds(200))
                Issue.record("the call outlived its timeout: \(result)")
            } catch {
                #expect(error.kind == .timeout)
            }
        }

        @Test("handlers: elicitation (form and URL), sampling (with tools), roots; in both eras; maxInputRounds")
        func handlers() async throws {
            let serverURL = try #require(dualURL)

var handlers = MCPClientHandlers()
handlers.elicitation = { request in
    if request.mode == .url { return .accept() }                    // after showing request.url to the user
    return .accept(["name": "Ada"])                                 // the form's fields, by name
}
handlers.sampling = { request in
    if let tools = request.tools, !tools.isEmpty {
        return MCPSamplingResult(text: "I would call \(tools.count) tool(s)", model: "my-model", stopReason: "endTurn")
    }
    return MCPSamplingResult(text: "blue", model: "my-model", stopReason: "endTurn")
}
handlers.samplingWithTools = true
handlers.roots = { [MCPRoot(uri: "file:///srv/project", name: "project")] }
            #expect(handlers.capabilities == ["sampling": ["tools": [:]], "elicitation": ["form": [:], "url": [:]], "roots": [:]])

let helped = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), era: nil, handlers: handlers)
let greeted = try await helped.callTool("ask_name")
print(greeted.text)                                                 // hello Ada
let consent = try await helped.callTool("open_url")
print(consent.text)                                                 // accept
let sky = try await helped.callTool("sample", arguments: ["prompt": "What colour is the sky?"])
print(sky.text)                                                     // blue
let weather = try await helped.callTool("sample_with_tools", arguments: ["prompt": "The weather in Oslo?"])
print(weather.structuredContent?["content"]?["text"]?.stringValue ?? "")   // I would call 1 tool(s)
let folders = try await helped.callTool("roots")
print(folders.structuredContent ?? [:])                             // {"result":["file:///srv/project"]}
            #expect(helped.server?.era == .stateless)
            #expect(greeted.text == "hello Ada")
            #expect(consent.text == "accept")
            #expect(sky.text == "blue")
            #expect(weather.structuredContent?["content"]?["text"] == "I would call 1 tool(s)", "\(weather)")
            #expect(folders.structuredContent == ["result": ["file:///srv/project"]])
            #expect("\(folders.structuredContent ?? [:])" == #"{"result":["file:///srv/project"]}"#)

let askedInSession = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), era: .handshake, handlers: handlers)
let greetedInSession = try await askedInSession.callTool("ask_name")
print(greetedInSession.text)                                        // hello Ada: asked by a request of the server's
            #expect(askedInSession.server?.era == .handshake)
            #expect(greetedInSession.text == "hello Ada")

var impatient = MCPClient.Configuration()
impatient.handlers = handlers
impatient.maxInputRounds = 0                                        // no input_required round at all
let noRounds = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), configuration: impatient)
do {
    _ = try await noRounds.callTool("ask_name")
} catch {
    print(error.message)                                            // The MCP server still asked for input after 0 rounds …
}
            do {
                let result = try await noRounds.callTool("ask_name")
                Issue.record("the call went through an input round with maxInputRounds 0: \(result)")
            } catch {
                #expect(error.message.hasPrefix("The MCP server still asked for input after 0 rounds"), "\(error.message)")
            }
        }

        @Test("resources (paged, templates, text, blob), the page bound; prompts; completion")
        func resourcesPromptsAndCompletion() async throws {
            let serverURL = try #require(dualURL)
            let mcp = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), timeout: .seconds(30))

let resources = try await mcp.listResources()                       // three pages of five
print(resources.count, resources.map(\.uri).contains("blob://bytes"))   // 12 true
let templates = try await mcp.listResourceTemplates()
print(templates.map(\.uriTemplate))                                 // ["greeting://{name}"]
let greeting = try await mcp.readResource("text://greeting")
print(greeting.first?.text ?? "")                                   // hello from parley-peer2
let bytes = try await mcp.readResource("blob://bytes")
print(bytes.first?.data?.count ?? 0, bytes.first?.mimeType ?? "")   // 16 application/octet-stream
let named = try await mcp.readResource("greeting://Ada")
print(named.first?.text ?? "")                                      // hello Ada
do {
    _ = try await mcp.listResources(maxPages: 2)
} catch {
    print(error.kind)                                               // jsonRPCProtocol: a third page was left
}
            #expect(resources.count == 12)
            #expect(resources.map(\.uri).contains("blob://bytes"))
            #expect(templates.map(\.uriTemplate) == ["greeting://{name}"])
            #expect(greeting.first?.text == "hello from parley-peer2")
            #expect(bytes.first?.data == Data(0..<16))
            #expect(bytes.first?.mimeType == "application/octet-stream")
            #expect(named.first?.text == "hello Ada")
            do {
                let listed = try await mcp.listResources(maxPages: 2)
                Issue.record("three pages listed within two: \(listed.count)")
            } catch {
                #expect(error.kind == .jsonRPCProtocol)
                #expect(error.message.contains("maxPages"), "\(error.message)")
            }

for prompt in try await mcp.listPrompts() { print(prompt.name, prompt.arguments.map(\.name)) }   // greet ["name", "style"]
let greet = try await mcp.getPrompt("greet", arguments: ["name": "Ada", "style": "formal"])
print(greet.messages.first?.role ?? "", greet.messages.first?.text ?? "")   // user Please greet Ada formally.
            #expect(try await mcp.listPrompts().map(\.name) == ["greet"])
            #expect(try await mcp.listPrompts().first?.arguments.map(\.name) == ["name", "style"])
            #expect(greet.messages.first?.role == "user")
            #expect(greet.messages.first?.text == "Please greet Ada formally.")

let names = try await mcp.complete(.resourceTemplate("greeting://{name}"), argument: "name", value: "al")
print(names.values, names.total ?? 0, names.hasMore)                // ["alice", "alex"] 2 false
let styles = try await mcp.complete(.prompt("greet"), argument: "style", value: "f", context: ["name": "Ada"])
print(styles.values)                                                // ["formal"]
            #expect(names.values == ["alice", "alex"])
            #expect(names.total == 2)
            #expect(!names.hasMore)
            #expect(styles.values == ["formal"])
        }

        @Test("log messages; subscriptions in the stateless era (subscriptions/listen) and the handshake era")
        func logsAndSubscriptions() async throws {
            let serverURL = try #require(dualURL)
            let mcp = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), timeout: .seconds(30))
            let pinned = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), era: .handshake)

try await mcp.setLogLevel("info")
let messages = try mcp.logMessages()
_ = try await mcp.callTool("log", arguments: ["message": "indexing done", "level": "info"])
var received = messages.makeAsyncIterator()
let message = try await received.next()
print(message?.level ?? "", message?.logger ?? "", message?.data ?? .null)   // info parley-peer2 "indexing done"
            #expect(message?.level == "info")
            #expect(message?.logger == "parley-peer2")
            #expect(message?.data == "indexing done")
            #expect("\(message?.data ?? .null)" == #""indexing done""#)

let updates = try await mcp.subscribe(resources: ["text://greeting"], listChanges: [.tools])
_ = try await mcp.callTool("touch", arguments: ["uri": "text://greeting"])
_ = try await mcp.callTool("add_tool")
var changes: Set<MCPUpdate> = []
for try await update in updates {
    switch update {
    case .resourceUpdated(let uri): print("read again:", uri)         // read again: text://greeting
    case .listChanged(let list): print("list again:", list)           // list again: tools
    }
    changes.insert(update)
    if changes.count == 2 { break }
}
updates.cancel()
            #expect(changes == [.resourceUpdated(uri: "text://greeting"), .listChanged(.tools)])
            #expect("\(MCPListKind.tools)" == "tools")
            #expect(mcp.server?.era == .stateless)

let sessionUpdates = try await pinned.subscribe(resources: ["text://greeting"])   // resources/subscribe
_ = try await pinned.callTool("touch", arguments: ["uri": "text://greeting"])
for try await update in sessionUpdates {
    print(update == .resourceUpdated(uri: "text://greeting"))                    // true: on the GET stream
    break
}
sessionUpdates.cancel()                                                          // resources/unsubscribe
            #expect(pinned.server?.era == .handshake)
            let posts = try await recorded(at: serverURL).filter { $0["method"] == "POST" }.compactMap { $0["rpcMethod"]?.stringValue }
            #expect(posts.contains("subscriptions/listen"))
            #expect(posts.contains("resources/subscribe"))
        }

        @Test("against the article's peer: an invalid x-mcp-header tool left out and logged; result caching; broken streams")
        func articlePeer() async throws {
            let peer = try await ArticlePeer.start()
            defer { peer.stop() }
            let serverURL = peer.url

            do {
var logger = Logger(label: "com.example.mcp")
logger.logLevel = .warning
                #expect(logger.logLevel == .warning)
            }
            let recorder = LogRecorder()
            let logger = recorder.logger(level: .warning)

var logged = MCPClient.Configuration()
logged.logger = logger
let checked = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), configuration: logged)
let offered = try await checked.listTools()
print(offered.map(\.name))                                          // ["add", "flaky"]: tagged is left out
// warning: MCP tool left out: its x-mcp-header annotations are invalid
//          mcp.tool=tagged reason=property tags: x-mcp-header is only allowed on string, integer or boolean properties
            #expect(offered.map(\.name) == ["add", "flaky"])
            let warning = try #require(recorder.records.first { $0.message == "MCP tool left out: its x-mcp-header annotations are invalid" })
            #expect(warning.level == .warning)
            #expect(warning["mcp.tool"] == "tagged")
            #expect(warning["reason"] == "property tags: x-mcp-header is only allowed on string, integer or boolean properties")

var caching = MCPClient.Configuration()
caching.resultCache = MCPResultCache.Limits(maxEntries: 100, maxAge: .seconds(600))
let cached = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), configuration: caching)
let firstRead = try await cached.readResource("counter://reads")
let secondRead = try await cached.readResource("counter://reads")  // not sent: kept for the 60 s the server said
print(firstRead.first?.text ?? "", "|", secondRead.first?.text ?? "")   // read 1 times | read 1 times
            #expect(firstRead.first?.text == "read 1 times")
            #expect(secondRead.first?.text == "read 1 times")
            // Without a cache (the default) every read goes to the server.
            let uncached = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)))
            #expect(try await uncached.readResource("counter://reads").first?.text == "read 2 times")
            let reads = try await recorded(at: serverURL).filter { $0["method"] == "resources/read" && $0["name"] == "counter://reads" }
            #expect(reads.count == 2, "\(reads)")

let fragile = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)))
let reread = try await fragile.readResource("flaky://read")
print(reread.first?.text ?? "")                                    // read at last: sent again, with a new id
do {
    _ = try await fragile.callTool("flaky")
} catch {
    print(error.kind)                                              // transport: a tool call is not sent again
}
            #expect(reread.first?.text == "read at last")
            do {
                let result = try await fragile.callTool("flaky")
                Issue.record("a call whose stream broke succeeded: \(result)")
            } catch {
                #expect(error.kind == .transport)
            }
            let requests = try await recorded(at: serverURL)
            let flakyReads = requests.filter { $0["method"] == "resources/read" && $0["name"] == "flaky://read" }
            #expect(flakyReads.count == 2, "the read went again once: \(flakyReads)")
            #expect(Set(flakyReads.compactMap { $0["id"] }).count == 2, "with a new id: \(flakyReads)")
            let flakyCalls = requests.filter { $0["method"] == "tools/call" && $0["name"] == "flaky" }
            #expect(flakyCalls.count == 2, "each call of flaky sent once: \(flakyCalls)")
        }

        @Test("errors: -32022 with the versions the server speaks")
        func errors() async throws {
            let statelessServerURL = try #require(modernURL)

let refusing = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: statelessServerURL)), era: .handshake)
do {
    try await refusing.connect()
} catch {
    print(error.mcpErrorCode?.description ?? "")                   // -32022 (the server does not speak this protocol version)
    print(error.mcpSupportedVersions ?? [])                        // ["2026-07-28"]
}
            do {
                let server = try await refusing.connect()
                Issue.record("a stateless-only server took the handshake era: \(server)")
            } catch {
                #expect(error.kind == .jsonRPCError)
                #expect(error.mcpErrorCode == .unsupportedProtocolVersion)
                #expect(error.mcpErrorCode?.description == "-32022 (the server does not speak this protocol version)")
                #expect(error.mcpSupportedVersions == ["2026-07-28"])
                #expect(error.message.contains("-32022"), "\(error.message)")
            }
            // Detected rather than pinned, the same server is of the stateless era.
            let detected = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: statelessServerURL)))
            #expect(try await detected.connect().era == .stateless)
        }

        @Test("Streamable HTTP in the handshake era: a session, a timeout the server hears of, DELETE")
        func handshakeSession() async throws {
            let handshakeServerURL = try #require(legacyURL)

let sessionChannel = MCPStreamableHTTPChannel(client: Client(baseURL: handshakeServerURL), maxResumptions: 3)
let session = MCPClient(channel: sessionChannel, timeout: .seconds(30))
let initialized = try await session.initialize()
print(initialized.serverInfo.name, initialized.protocolVersion)   // parley-peer 2025-11-25
print(sessionChannel.sessionID != nil, sessionChannel.protocolVersion ?? "")   // true 2025-11-25
do {
    _ = try await session.callTool("wait", arguments: ["seconds": 60], timeout: .milliseconds(200))
} catch {
    print(error.kind)                                              // timeout
}
await session.rpc.waitForCancellationNotices()                     // notifications/cancelled was sent
await sessionChannel.close()                                       // DELETE: the session ends
            #expect(initialized.serverInfo.name == "parley-peer")
            #expect(initialized.protocolVersion == "2025-11-25")
            #expect(session.server?.era == .handshake)
            do {
                _ = try await session.callTool("add", arguments: ["a": 1, "b": 1])
                Issue.record("a closed channel still carried a call")
            } catch {
                #expect(error.kind == .transport)
            }
            // The server recorded the cancelled wait (the 1.30 peer's `cancellations` tool).
            let checker = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: handshakeServerURL)), timeout: .seconds(30))
            var cancelled: [JSONValue] = []
            for _ in 0..<100 where cancelled.isEmpty {
                cancelled = try await checker.callTool("cancellations").structuredContent?["result"]?.arrayValue ?? []
                if cancelled.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(!cancelled.isEmpty, "the server recorded no cancelled wait")
        }

        @Test("stdio: the stateless era over a child process's standard input and output")
        func stdio() async throws {
            let python = URL(fileURLWithPath: try #require(DocCMCP.python))
            let script = try #require(DocCMCP.script)

let local = try JSONRPCStreamChannel.launch(
    executable: python, arguments: [script, "stdio"], standardError: .nullDevice, framing: .newlineDelimited
)
let stdio = MCPClient(channel: local, timeout: .seconds(30))
let localServer = try await stdio.connect()
print(localServer.era)                                             // 2026-07-28 (stateless)
let shouted = try await stdio.callTool("shout", arguments: ["text": "hello"])
print(shouted.text)                                                // HELLO
_ = await local.shutdown()
            #expect(localServer.era == .stateless)
            #expect(shouted.text == "HELLO")
        }
    }
}
