import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Parley
import ServiceLifecycle

/// How ``ScriptedMCPServer`` answers: the hostile or unusual answers of the Streamable HTTP transport that a real MCP
/// server (the official Python SDK, tested against elsewhere) never gives.
///
/// Whatever the script, `initialize` is answered as `application/json` with an `Mcp-Session-Id` (`session-1`, then
/// `session-2` …) and the protocol version ``ScriptedMCPServer/protocolVersion``; notifications and the client's
/// answers are accepted with `202` and no body; a message carrying a session that is not the current one gets `404`.
/// The script says how the calls after `initialize` are answered.
enum MCPScript: Sendable, Hashable {
    /// As `application/json`.
    case json
    /// As an event stream: a `notifications/progress` (for the call's progress token, or `no-token`), then a
    /// `roots/list` request whose id is the call's own id, then, once the client has posted its answer to it (at most
    /// 10 s later), the call's answer carrying the roots the client gave (in `structuredContent.roots`). Without the
    /// client's answer in time, the call's answer is an error object.
    case serverRequest
    /// As an event stream: a priming event (id `e0`, no data), a `notifications/message` (id `e1`), then the stream
    /// ends. A `GET` with `Last-Event-ID: e1` gets the answer (id `e2`).
    case resumable
    /// As an event stream that carries a `notifications/message` without an id, then ends.
    case endsWithoutEventIDs
    /// As `application/json`, except the first call of the first session: the session is forgotten and the call
    /// answered `404` (as the Python SDK does: a JSON-RPC error object, "Session not found").
    case expiringSession
    /// As `application/json`, with this session id assigned by `initialize`.
    case sessionID(String)
    /// As `application/json`, with this protocol version chosen by `initialize`.
    case protocolVersion(String)
    /// As `text/plain`.
    case plainText
    /// As `application/json` (or, `asEvent`, an event stream whose one event carries it) with an answer of about
    /// `bytes` bytes.
    case oversized(bytes: Int, asEvent: Bool)
    /// `500 Internal Server Error` with a plain text body.
    case serverError
    /// `400 Bad Request` with a JSON-RPC error object of `code` for the call's id.
    case rejected(code: Int)
    /// As `application/json`; the first `GET` without `Last-Event-ID` gets an event stream carrying
    /// `notifications/tools/list_changed`, then ends; later ones get `405`.
    case listening
    /// As an event stream: `count` `ping` requests (ids `ping-0`, `ping-1` …), then the call's answer. The client's
    /// answers to them are counted (``ScriptedMCPServer/pingAnswers``) and held, unanswered, until
    /// ``ScriptedMCPServer/releaseAnswers()`` (or the server stops).
    case requestFlood(count: Int)
    /// As ``expiringSession``, except that every `initialize` after the first is held until
    /// ``ScriptedMCPServer/releaseAnswers()`` (or the server stops), then answered `503`; once released, they are
    /// answered as usual.
    case hangingRenewal
    /// A server of the stateless era (2026-07-28): `server/discover` is answered (`application/json`, `ttlMs` 60 000),
    /// `initialize` refused with `-32022`. The first `POST` of each other method gets an event stream carrying a
    /// `notifications/message` with an event id, then ends without the answer; later ones are answered as
    /// `application/json`. A `GET` is answered `405` (nothing to resume in this era).
    case statelessBreaking
}

/// The client's answers to the `ping` requests of ``MCPScript/requestFlood(count:)``, as ``ScriptedMCPServer``
/// counted them.
struct MCPPingAnswers: Sendable {
    /// Answers with a `result`.
    var results = 0
    /// Answers with the error `-32000` (too many requests in flight).
    var refusals = 0
    /// Any other answer.
    var others = 0
    /// The answer `POST`s received and not answered yet.
    var inFlight = 0
    /// The most answer `POST`s that were in flight at once.
    var maxInFlight = 0

    /// Every answer received.
    var total: Int { results + refusals + others }
}

/// What ``ScriptedMCPServer`` received: one HTTP request to `/mcp`.
struct MCPReceived: Sendable {
    /// `POST`, `GET` or `DELETE`.
    let method: String
    /// `Mcp-Session-Id`, if sent.
    let sessionID: String?
    /// `MCP-Protocol-Version`, if sent.
    let protocolVersion: String?
    /// `Last-Event-ID`, if sent.
    let lastEventID: String?
    /// `Accept`, if sent.
    let accept: String?
    /// The body as sent.
    let body: Data
    /// The body as JSON, when it is.
    let json: JSONValue?

    /// The JSON-RPC `method` of the body, for a request or notification.
    var rpcMethod: String? { json?["method"]?.stringValue }
    /// The JSON-RPC `id` of the body, for a request or an answer.
    var rpcID: JSONValue? { json?["id"] }
    /// Whether `Accept` lists `type` (such as `application/json`).
    func accepts(_ type: String) -> Bool {
        (accept ?? "").split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == type }
    }
}

/// An in-process Hummingbird server on an ephemeral 127.0.0.1 port with one route, `/mcp` (`POST`, `GET`, `DELETE`),
/// answering as its ``MCPScript`` says and recording every request it received (``received``).
///
/// ```swift
/// let server = try await ScriptedMCPServer.start(.resumable)
/// defer { Task { await server.stop() } }
/// let channel = MCPStreamableHTTPChannel(client: Client(baseURL: server.baseURL, transport: …), path: "/mcp")
/// ```
///
/// A request is recorded before it is answered, so once the client has the answer, the server has the record.
final class ScriptedMCPServer: Sendable {
    /// The protocol version the server chooses, whatever the client asks for.
    static let protocolVersion = "2025-06-18"

    /// The script the server follows.
    let script: MCPScript
    /// The port the server is listening on.
    let port: Int
    private let state: ScriptedMCPState
    private let server: TestServer

    private init(script: MCPScript, port: Int, state: ScriptedMCPState, server: TestServer) {
        self.script = script
        self.port = port
        self.state = state
        self.server = server
    }

    /// The server's address, `http://127.0.0.1:PORT` (the MCP endpoint is its `/mcp`).
    var baseURL: URL {
        get throws { try URL(string: "http://127.0.0.1:\(port)").orThrow("no URL for port \(port)") }
    }

    /// Every request received, in arrival order.
    var received: [MCPReceived] { state.received }

    /// The `POST` requests received, in arrival order.
    var posts: [MCPReceived] { received.filter { $0.method == "POST" } }

    /// The client's answers to the pings of ``MCPScript/requestFlood(count:)`` so far.
    var pingAnswers: MCPPingAnswers { state.pingAnswers }

    /// Answers the `POST`s being held (``MCPScript/requestFlood(count:)``, ``MCPScript/hangingRenewal``) and those
    /// that come later at once.
    func releaseAnswers() {
        state.release()
    }

    /// Returns once ``pingAnswers`` satisfies `condition` (the test's time limit ends a wait that never does).
    func waitForPingAnswers(_ condition: @escaping @Sendable (MCPPingAnswers) -> Bool) async {
        await state.waitForPingAnswers(condition)
    }

    /// Starts a server following `script`, and returns once it accepts connections.
    static func start(_ script: MCPScript) async throws -> ScriptedMCPServer {
        let state = ScriptedMCPState(script: script)
        let router = Router(context: BasicRequestContext.self)
        router.post("mcp") { request, _ in try await state.post(request) }
        router.get("mcp") { request, _ in state.get(request) }
        router.delete("mcp") { request, _ in state.delete(request) }
        let server = try await TestServer.start(router, label: "parley.scripted-mcp-server")
        return ScriptedMCPServer(script: script, port: server.port, state: state, server: server)
    }

    /// Stops the server gracefully (answering the `POST`s it holds) and waits until it has stopped.
    func stop() async {
        state.release()
        await server.stop()
    }
}

/// Why ``ScriptedMCPServer/start(_:)`` failed without an error of its own.
enum ScriptedMCPServerError: Error {
    case missing(String)
}

extension Optional {
    /// The value, or a thrown ``ScriptedMCPServerError/missing(_:)`` saying `what`.
    fileprivate func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw ScriptedMCPServerError.missing(what) }
        return self
    }
}

/// The scripted server's sessions, records and pending answers, shared by its route handlers.
private final class ScriptedMCPState: Sendable {
    struct State {
        var received: [MCPReceived] = []
        var sessionsIssued = 0
        var currentSession: String?
        var expired = false
        /// The client's answers to the server's requests, by id.
        var answers: [JSONValue: JSONValue] = [:]
        var answerWaiters: [JSONValue: AsyncStream<JSONValue>.Continuation] = [:]
        /// The id of the call whose stream ended early (``MCPScript/resumable``).
        var unansweredCall: JSONValue?
        var listenerStreams = 0
        /// The `initialize` requests received.
        var initializes = 0
        var pingAnswers = MCPPingAnswers()
        var pingWaiters: [(condition: @Sendable (MCPPingAnswers) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        /// The requests held unanswered until ``release()``; `released` once it was called.
        var holds: [AsyncStream<Void>.Continuation] = []
        var released = false
    }

    let script: MCPScript
    private let box = LockedBox(State())

    init(script: MCPScript) {
        self.script = script
    }

    var received: [MCPReceived] { box.value.received }

    var pingAnswers: MCPPingAnswers { box.value.pingAnswers }

    static let sessionHeader = "Mcp-Session-Id"
    static let eventStream = "text/event-stream"

    // MARK: Routes

    func post(_ request: Request) async throws -> Response {
        let buffer = try await request.body.collect(upTo: 1 << 20)
        let received = record(request, body: Data(buffer.readableBytesView))
        guard let message = received.json else { return Self.error(.badRequest, id: nil, code: -32700, "Parse error") }
        let method = received.rpcMethod
        if case .statelessBreaking = script {
            return statelessAnswer(method: method, id: received.rpcID, message: message)
        }
        if method == "initialize" {
            let initializes = box.mutate { state -> Int in
                state.initializes += 1
                return state.initializes
            }
            if case .hangingRenewal = script, initializes > 1, !box.value.released {
                await hold()
                return Response(status: .serviceUnavailable)
            }
            let session = box.mutate { state -> String in
                state.sessionsIssued += 1
                if case .sessionID(let id) = script {
                    state.currentSession = id
                } else {
                    state.currentSession = "session-\(state.sessionsIssued)"
                }
                return state.currentSession ?? ""
            }
            var version = ScriptedMCPServer.protocolVersion
            if case .protocolVersion(let chosen) = script { version = chosen }
            let result: JSONValue = [
                "protocolVersion": .string(version),
                "capabilities": ["tools": ["listChanged": true]],
                "serverInfo": ["name": "scripted", "version": "1.0"],
            ]
            return Self.json(["jsonrpc": "2.0", "id": received.rpcID ?? .null, "result": result], session: session)
        }
        if let failure = checkSession(received) { return failure }
        guard let method, let id = received.rpcID else {
            // A notification, or the client's answer to one of the server's requests.
            if method == nil, let id = received.rpcID {
                if case .requestFlood = script, id.stringValue?.hasPrefix("ping-") == true {
                    await holdPingAnswer(message)
                } else {
                    deliver(answer: message["result"] ?? message, to: id)
                }
            }
            return Response(status: .accepted)
        }
        return await answerCall(method: method, id: id, message: message)
    }

    func get(_ request: Request) -> Response {
        let received = record(request, body: Data())
        if let failure = checkSession(received) { return failure }
        switch (script, received.lastEventID) {
        case (.resumable, "e1"?):
            guard let id = box.mutate({ $0.unansweredCall }) else { return Response(status: .badRequest) }
            return Self.events([.init(id: "e2", data: Self.answer(id, method: "tools/call", via: "resumed"))])
        case (.listening, nil):
            let first = box.mutate { state -> Bool in
                state.listenerStreams += 1
                return state.listenerStreams == 1
            }
            guard first else { return Response(status: .methodNotAllowed) }
            return Self.events([.init(data: ["jsonrpc": "2.0", "method": "notifications/tools/list_changed"])])
        case (_, _?):
            return Response(status: .badRequest)
        default:
            return Response(status: .methodNotAllowed)
        }
    }

    func delete(_ request: Request) -> Response {
        let received = record(request, body: Data())
        if let failure = checkSession(received) { return failure }
        box.mutate { $0.currentSession = nil }
        return Response(status: .ok)
    }

    // MARK: Answers

    /// ``MCPScript/statelessBreaking``.
    private func statelessAnswer(method: String?, id: JSONValue?, message: JSONValue) -> Response {
        guard let method, let id else { return Response(status: .accepted) }
        switch method {
        case "server/discover":
            let result: JSONValue = [
                "supportedVersions": ["2026-07-28"], "capabilities": ["tools": [:]], "resultType": "complete",
                "ttlMs": 60_000, "cacheScope": "public",
                "_meta": ["io.modelcontextprotocol/serverInfo": ["name": "scripted-stateless", "version": "1.0"]],
            ]
            return Self.json(["jsonrpc": "2.0", "id": id, "result": result])
        case "initialize":
            return Self.error(.badRequest, id: id, code: -32022, "Unsupported protocol version")
        default:
            let first = box.mutate { state -> Bool in
                let seen = state.answers[.string(method)] != nil
                state.answers[.string(method)] = true
                return !seen
            }
            guard first else { return Self.json(Self.answer(id, method: method, via: "json")) }
            let log: JSONValue = [
                "jsonrpc": "2.0", "method": "notifications/message", "params": ["level": "info", "data": "working"],
            ]
            return Self.events([.init(id: "e1", data: log)])
        }
    }

    private func answerCall(method: String, id: JSONValue, message: JSONValue) async -> Response {
        switch script {
        case .json, .sessionID, .protocolVersion, .listening, .statelessBreaking:
            return Self.json(Self.answer(id, method: method, via: "json"))
        case .expiringSession, .hangingRenewal:
            let expire = box.mutate { state -> Bool in
                guard !state.expired else { return false }
                state.expired = true
                state.currentSession = nil
                return true
            }
            if expire { return Self.error(.notFound, id: "server-error", code: -32600, "Session not found") }
            return Self.json(Self.answer(id, method: method, via: "json"))
        case .serverRequest:
            let token = message["params"]?["_meta"]?["progressToken"] ?? "no-token"
            return Response(
                status: .ok,
                headers: [.contentType: Self.eventStream, .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    let progress: JSONValue = [
                        "jsonrpc": "2.0", "method": "notifications/progress",
                        "params": ["progressToken": token, "progress": 1, "total": 2, "message": "half way"],
                    ]
                    let rootsRequest: JSONValue = ["jsonrpc": "2.0", "id": id, "method": "roots/list"]
                    try await writer.write(ByteBuffer(string: try Self.event(.init(data: progress))))
                    try await writer.write(ByteBuffer(string: try Self.event(.init(data: rootsRequest))))
                    let final: JSONValue
                    if let roots = await self.answer(to: id, within: .seconds(10)) {
                        var answer = Self.answer(id, method: method, via: "sse")
                        if case .object(var members) = answer, case .object(var result)? = members["result"],
                            case .object(var structured)? = result["structuredContent"]
                        {
                            structured["roots"] = roots["roots"] ?? .null
                            result["structuredContent"] = .object(structured)
                            members["result"] = .object(result)
                            answer = .object(members)
                        }
                        final = answer
                    } else {
                        final = [
                            "jsonrpc": "2.0", "id": id,
                            "error": ["code": -32001, "message": "the client never answered roots/list"],
                        ]
                    }
                    try await writer.write(ByteBuffer(string: try Self.event(.init(data: final))))
                    try await writer.finish(nil)
                }
            )
        case .resumable:
            box.mutate { $0.unansweredCall = id }
            let log: JSONValue = [
                "jsonrpc": "2.0", "method": "notifications/message", "params": ["level": "info", "data": "working"],
            ]
            return Self.events([.init(id: "e0", data: nil), .init(id: "e1", data: log)])
        case .endsWithoutEventIDs:
            let log: JSONValue = [
                "jsonrpc": "2.0", "method": "notifications/message", "params": ["level": "info", "data": "working"],
            ]
            return Self.events([.init(data: log)])
        case .plainText:
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "hello, this is not JSON-RPC"))
            )
        case .oversized(let bytes, let asEvent):
            var answer = Self.answer(id, method: method, via: "json")
            if case .object(var members) = answer {
                members["padding"] = .string(String(repeating: "x", count: bytes))
                answer = .object(members)
            }
            return asEvent ? Self.events([.init(data: answer)]) : Self.json(answer)
        case .serverError:
            return Response(
                status: .internalServerError,
                headers: [.contentType: "text/plain"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "Internal Server Error: the tool crashed"))
            )
        case .rejected(let code):
            let tool = message["params"]?["name"]?.stringValue ?? method
            return Self.error(.badRequest, id: id, code: code, "Invalid params: no tool named \(tool)")
        case .requestFlood(let count):
            return Response(
                status: .ok,
                headers: [.contentType: Self.eventStream, .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    var events = ""
                    for index in 0..<count {
                        let ping: JSONValue = ["jsonrpc": "2.0", "id": .string("ping-\(index)"), "method": "ping"]
                        events += try Self.event(.init(data: ping))
                        if events.utf8.count >= 64 << 10 {
                            try await writer.write(ByteBuffer(string: events))
                            events = ""
                        }
                    }
                    events += try Self.event(.init(data: Self.answer(id, method: method, via: "sse")))
                    try await writer.write(ByteBuffer(string: events))
                    try await writer.finish(nil)
                }
            )
        }
    }

    // MARK: Holding

    /// Counts the client's answer to a ping, then holds its `POST` until ``release()``.
    private func holdPingAnswer(_ message: JSONValue) async {
        let met = box.mutate { state -> [CheckedContinuation<Void, Never>] in
            if message["result"] != nil {
                state.pingAnswers.results += 1
            } else if message["error"]?["code"] == -32000 {
                state.pingAnswers.refusals += 1
            } else {
                state.pingAnswers.others += 1
            }
            state.pingAnswers.inFlight += 1
            state.pingAnswers.maxInFlight = max(state.pingAnswers.maxInFlight, state.pingAnswers.inFlight)
            let answers = state.pingAnswers
            let met = state.pingWaiters.filter { $0.condition(answers) }
            state.pingWaiters.removeAll { $0.condition(answers) }
            return met.map(\.continuation)
        }
        for continuation in met { continuation.resume() }
        await hold()
        box.mutate { $0.pingAnswers.inFlight -= 1 }
    }

    func waitForPingAnswers(_ condition: @escaping @Sendable (MCPPingAnswers) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = box.mutate { state -> Bool in
                if condition(state.pingAnswers) { return true }
                state.pingWaiters.append((condition, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once ``release()`` was called.
    private func hold() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let wait = box.mutate { state -> Bool in
            guard !state.released else { return false }
            state.holds.append(continuation)
            return true
        }
        guard wait else { return }
        for await _ in stream {}
    }

    /// Ends every hold, and those to come.
    func release() {
        let holds = box.mutate { state in
            state.released = true
            defer { state.holds = [] }
            return state.holds
        }
        for hold in holds { hold.finish() }
    }

    /// A `404` (with a JSON-RPC error object) when the message carries a session that is not the current one.
    private func checkSession(_ received: MCPReceived) -> Response? {
        guard let session = received.sessionID else { return nil }
        guard session != box.mutate({ $0.currentSession }) else { return nil }
        return Self.error(.notFound, id: "server-error", code: -32600, "Session not found")
    }

    // MARK: Records

    private func record(_ request: Request, body: Data) -> MCPReceived {
        func header(_ name: String) -> String? {
            request.headers.first { $0.name.canonicalName == name.lowercased() }?.value
        }
        let received = MCPReceived(
            method: request.method.rawValue,
            sessionID: header(Self.sessionHeader),
            protocolVersion: header("MCP-Protocol-Version"),
            lastEventID: header("Last-Event-ID"),
            accept: header("Accept"),
            body: body,
            json: body.isEmpty ? nil : try? JSONDecoder().decode(JSONValue.self, from: body)
        )
        box.mutate { $0.received.append(received) }
        return received
    }

    private func deliver(answer: JSONValue, to id: JSONValue) {
        let waiter = box.mutate { state in
            state.answers[id] = answer
            return state.answerWaiters.removeValue(forKey: id)
        }
        waiter?.yield(answer)
        waiter?.finish()
    }

    /// The client's answer to the server's request `id`, once posted; `nil` when none came within `limit` (a guard
    /// against hanging, not a synchronisation).
    private func answer(to id: JSONValue, within limit: Duration) async -> JSONValue? {
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        let ready = box.mutate { state -> JSONValue? in
            if let answer = state.answers[id] { return answer }
            state.answerWaiters[id] = continuation
            return nil
        }
        if let ready { return ready }
        return await withTaskGroup(of: JSONValue?.self) { group in
            group.addTask {
                for await answer in stream { return answer }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    // MARK: Responses

    /// One Server-Sent Event: `id` and `data` (one line of JSON) when given.
    struct Event {
        var id: String?
        var data: JSONValue?
    }

    /// The answer to the call `id` of `method`: a tool result (or, for `tools/list`, a page of one tool) saying `via`
    /// which way it came.
    static func answer(_ id: JSONValue, method: String, via: String) -> JSONValue {
        let result: JSONValue =
            method == "tools/list"
            ? ["tools": [["name": "echo", "inputSchema": ["type": "object"]]]]
            : [
                "content": [["type": "text", "text": .string("\(method) answered")]],
                "structuredContent": ["method": .string(method), "via": .string(via)],
            ]
        return ["jsonrpc": "2.0", "id": id, "result": result]
    }

    static func event(_ event: Event) throws -> String {
        var text = ""
        if let id = event.id { text += "id: \(id)\n" }
        if let data = event.data {
            text += "event: message\ndata: " + String(decoding: try JSONEncoder().encode(data), as: UTF8.self) + "\n"
        } else {
            text += "data: \n"
        }
        return text + "\n"
    }

    static func events(_ events: [Event]) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: eventStream, .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                for event in events { try await writer.write(ByteBuffer(string: try Self.event(event))) }
                try await writer.finish(nil)
            }
        )
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, session: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let session, let name = HTTPField.Name(sessionHeader) { headers[name] = session }
        let body = (try? JSONEncoder().encode(value)) ?? Data()
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func error(_ status: HTTPResponse.Status, id: JSONValue?, code: Int, _ message: String) -> Response {
        json(
            ["jsonrpc": "2.0", "id": id ?? .null, "error": ["code": .int(code), "message": .string(message)]],
            status: status
        )
    }
}
