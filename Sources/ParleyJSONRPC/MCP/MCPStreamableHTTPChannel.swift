import HTTPTypes
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// JSON-RPC over the Model Context Protocol's Streamable HTTP transport (protocol versions 2025-03-26, 2025-06-18
/// and 2025-11-25), through a Parley ``/Parley/Client``: its middlewares, timeouts and transport apply.
///
/// ```swift
/// let channel = MCPStreamableHTTPChannel(client: Client(baseURL: server), path: "/mcp")
/// let mcp = MCPClient(channel: channel)
/// try await mcp.initialize()
/// let tools = try await mcp.listTools()
/// await channel.close()   // ends the session with DELETE
/// ```
///
/// Each message is a `POST` accepting `application/json` and `text/event-stream`. A call's answer comes either as
/// a JSON body or as a stream of Server-Sent Events (read with Parley's parser) that may carry the server's
/// notifications and requests before the answer; a stream that ends before the answer is resumed with a `GET`
/// sending `Last-Event-ID`. The `Mcp-Session-Id` the server assigns in its answer to `initialize` is sent with every
/// later message, and so is `MCP-Protocol-Version` once negotiated. When the server answers `404` for the session
/// (it expired), the channel starts a new one: it sends the `initialize` call and `notifications/initialized` it saw
/// again, without a session, then the message. ``listen(reconnect:)`` opens the `GET` stream on which the server sends
/// messages unprompted; ``close()`` ends the session with `DELETE`.
///
/// The server's requests (on any stream) are answered by `router` (`-32601` without one), its answer `POST`ed
/// back; its notifications arrive on ``incoming``, or on a call's progress (``JSONRPCClient/call(_:progress:timeout:)``).
/// Reading never waits for a handler or an answer's `POST`. At most `maxServerRequests` (1024) of the server's
/// requests are in flight at once (handled, or their answers waiting to be posted), at most four answers are posted
/// at once; beyond them, a request is refused with `-32000` while fewer than `maxServerRequests` refusals wait to be
/// posted, and dropped after that.
///
/// A new session started after a `404` runs under the deadlines of the messages waiting for it: once the last of
/// them has given up, it is cancelled, and the next message starts another.
public final class MCPStreamableHTTPChannel: JSONRPCConnectionChannel {
    /// The client the messages go through.
    public let client: Client
    /// The path of the MCP endpoint, relative to the client's base URL.
    public let path: Path
    /// Extra header fields for every message.
    public let headers: Headers
    /// The largest message (a JSON body, or one event's data) accepted from the server.
    public let maxMessageSize: Int
    /// How many times one call's event stream is resumed with `Last-Event-ID` after it ended without the answer.
    public let maxResumptions: Int

    package let connection: JSONRPCConnection
    /// The server's requests being handled, and their answers being posted.
    let serverRequests: MCPServerRequests
    let session = LockedState(Session())

    struct Session {
        var id: String?
        var protocolVersion: String?
        /// The `initialize` call and `notifications/initialized` as sent, to start a new session after a `404`.
        var initialize: (message: Data, ids: [JSONRPCID])?
        var initialized: Data?
        /// The `GET` stream's listening, in the connection's loop.
        var listener: TaskLoop.Handle?
        var closed = false
        /// The new session being started after a 404.
        var renewal: Renewal?
        /// The session expired, and no new one was started since (its start failed, or every message waiting for
        /// it left): the next message starts one.
        var lost = false
        /// The channel carried a stateless-era message (2026-07-28): no session, no notifications of the client's.
        var stateless = false
    }

    /// The start of a new session, shared by the messages waiting for it.
    struct Renewal {
        /// The start, in the connection's loop.
        let work: TaskLoop.Handle
        /// Fires when the start ended, its outcome known.
        let done: Deadline.Signal
        let outcome: LockedState<Result<Void, any Error>?>
        /// The messages waiting for it: when the last one leaves (its deadline passed), the start is cancelled.
        var waiters = 1
    }

    /// The server's notifications that no call's progress took, in arrival order.
    ///
    /// One stream for the channel, with one consumer: two tasks iterating it share its notifications.
    public var incoming: AsyncStream<JSONRPCIncoming> { connection.incoming }

    /// The session the server assigned, once `initialize` was answered; `nil` before, or when it assigns none.
    public var sessionID: String? { session.withLock { $0.id } }

    /// The protocol version the server chose in its answer to `initialize`, sent as `MCP-Protocol-Version`.
    public var protocolVersion: String? { session.withLock { $0.protocolVersion } }

    /// A channel posting to `path` on `client`.
    ///
    /// - Parameters:
    ///   - client: The client the messages go through.
    ///   - path: The MCP endpoint's path, relative to the client's base URL (often `/mcp`).
    ///   - headers: Extra header fields for every message (such as an API key).
    ///   - router: Answers the server's requests (such as `ping`, `roots/list`, `sampling/createMessage`).
    ///   - maxMessageSize: The largest message accepted from the server (default 8 MiB).
    ///   - maxResumptions: How many times one call's stream is resumed after it ended early (default 3): a server
    ///     that ends every stream after an event cannot keep a call going for ever.
    ///   - maxServerRequests: The most requests of the server in flight at once, handled or their answers waiting to
    ///     be posted (default 1024). Beyond them a request is refused with `-32000` while as many refusals wait to be
    ///     posted, and dropped unanswered after that.
    public init(
        client: Client,
        path: Path = "",
        headers: Headers = [:],
        router: JSONRPCRouter? = nil,
        maxMessageSize: Int = 8 << 20,
        maxResumptions: Int = 3,
        maxServerRequests: Int = 1024
    ) {
        self.client = client
        self.path = path
        self.headers = headers
        self.maxMessageSize = max(maxMessageSize, 1)
        self.maxResumptions = max(maxResumptions, 0)
        self.connection = JSONRPCConnection(router: router, maxPeerRequests: max(maxServerRequests, 1))
        self.serverRequests = MCPServerRequests(maxRefusals: max(maxServerRequests, 1), tasks: connection.tasks)
    }

    deinit {
        session.withLock { $0.listener }?.cancel()
        serverRequests.close()
    }

    /// Posts the message; for a call, reads the answer from the JSON body or the event stream.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await exchange(message, describing: JSONRPCExchange(methods: [], ids: ids, isRepeatable: false))
    }

    /// Posts the message with the exchange's header fields; for a call, reads the answer from the JSON body or the
    /// event stream.
    ///
    /// A message whose `MCP-Protocol-Version` is a stateless-era version (2026-07-28, as ``MCPClient`` sends it there)
    /// goes without a session: no `Mcp-Session-Id`, no new session after a `404`, and its event stream is not resumed
    /// (nothing to resume it in): one that ends before the answer fails the call. Once the channel carried such a
    /// message, it posts no notifications of the client's (the stateless era has none over HTTP; a call is cancelled
    /// by closing its stream, which a cancelled call does).
    public func exchange(_ message: Data, describing exchange: JSONRPCExchange) async throws(ParleyError) -> JSONRPCReply? {
        if session.withLock({ $0.closed }) {
            throw ParleyError(.transport, "The MCP channel is closed: it was closed.")
        }
        if let version = exchange.headerFields["MCP-Protocol-Version"], MCPEra(version).isStateless {
            session.withLock { $0.stateless = true }
            do {
                return try await send(
                    message,
                    ids: exchange.ids,
                    isInitialize: false,
                    extra: exchange.headerFields,
                    stateless: true
                )
            } catch {
                throw ParleyError.wrapping(error, as: .transport, "The MCP channel failed: \(error)")
            }
        }
        if exchange.ids.isEmpty, session.withLock({ $0.stateless && $0.id == nil }) {
            return nil  // a notification of the client's: the stateless era has none over HTTP
        }
        let ids = exchange.ids
        // The exchange names what it carries: a batch or an answer is neither initialize nor initialized.
        let method = exchange.methods.count == 1 ? exchange.methods.first : nil
        if method == "initialize" {
            session.withLock { $0.initialize = (message, ids) }
        } else if method == "notifications/initialized" {
            session.withLock { $0.initialized = message }
        }
        // A message does not go out while a new session is being started: it waits and goes on the new one.
        if method != "initialize", case .wait(let renewal) = joinRenewal(nil) { try await wait(for: renewal) }
        let sentSession = sessionID
        do {
            return try await send(message, ids: ids, isInitialize: method == "initialize", extra: exchange.headerFields)
        } catch let expired as SessionExpired {
            guard method != "initialize" else { throw expired.error }
            switch joinRenewal(sentSession) {
            case .impossible: throw expired.error
            case .wait(let renewal): try await wait(for: renewal)
            case .proceed: break
            }
            do {
                return try await send(message, ids: ids, isInitialize: false, extra: exchange.headerFields)
            } catch let again as SessionExpired {
                throw again.error
            } catch {
                throw ParleyError.wrapping(error, as: .transport, "The MCP channel failed: \(error)")
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The MCP channel failed: \(error)")
        }
    }

    /// What a message does about the session's renewal.
    enum RenewalStep {
        /// Go on: the session was renewed already, or needs no renewal.
        case proceed
        /// Wait for this renewal, then go on.
        case wait(Renewal)
        /// No `initialize` was seen: no new session can be started.
        case impossible
    }

    /// Joins the start of a new session: the one under way; else a new one when `expired` (the session a message met
    /// a `404` for; `nil` before sending) is still the current one, or the session was lost. A new session starts as
    /// the specification asks: the `initialize` call and `notifications/initialized` seen before, sent again without
    /// a session. Messages that meet the same 404 at once share one renewal.
    private func joinRenewal(_ expired: String?) -> RenewalStep {
        session.withLock { state -> RenewalStep in
            if var current = state.renewal {
                current.waiters += 1
                state.renewal = current
                return .wait(current)
            }
            guard expired == nil ? state.lost : state.id == expired else { return .proceed }  // renewed already
            guard let initialize = state.initialize else { return expired == nil ? .proceed : .impossible }
            let initialized = state.initialized
            state.id = nil
            state.protocolVersion = nil
            state.lost = true
            let done = Deadline.Signal()
            let outcome = LockedState<Result<Void, any Error>?>(nil)
            let work = connection.tasks.run { [self] in
                defer {
                    session.withLock { if $0.renewal?.done === done { $0.renewal = nil } }
                    done.fire()
                }
                do {
                    _ = try await send(initialize.message, ids: initialize.ids, isInitialize: true)
                    if let initialized { _ = try await send(initialized, ids: [], isInitialize: false) }
                    outcome.withLock { $0 = .success(()) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                }
            }
            let renewal = Renewal(work: work, done: done, outcome: outcome)
            state.renewal = renewal
            return .wait(renewal)
        }
    }

    /// Waits for `renewal` under the caller's deadline: a caller cancelled (its call's time is up) leaves at once,
    /// and the last one to leave cancels the renewal.
    private func wait(for renewal: Renewal) async throws(ParleyError) {
        await renewal.done.wait()
        let cancelled = Task.isCancelled
        let abandoned = session.withLock { state -> Bool in
            guard var current = state.renewal, current.done === renewal.done else { return false }
            current.waiters -= 1
            // Abandoned: the next message starts another rather than join one being cancelled.
            state.renewal = cancelled && current.waiters == 0 ? nil : current
            return state.renewal == nil
        }
        if abandoned { renewal.work.cancel() }
        if cancelled {
            throw ParleyError(.cancelled, "The MCP message was cancelled while the channel was starting a new session.")
        }
        do {
            guard let outcome = renewal.outcome.withLock({ $0 }) else {
                throw ParleyError(.cancelled, "Starting a new MCP session was cancelled.")
            }
            try outcome.get()
        } catch let expired as SessionExpired {
            throw expired.error
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "Starting a new MCP session failed: \(error)")
        }
    }

    /// Answers the peer's requests for `router`'s methods too (``JSONRPCPushChannel/answerPeerRequests(with:)``).
    public func answerPeerRequests(with router: JSONRPCRouter) {
        connection.answerAlso(router)
    }

    /// The server's notifications that `matcher` accepts for `key`, until the subscription is cancelled.
    public func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription? {
        try watchOnConnection(matcher, key: key)
    }

    /// Ends the session: stops ``listen(reconnect:)``'s stream, sends `DELETE` with the session id (a server that does not allow
    /// it answers `405`, which is fine), and fails every later message.
    public func close() async {
        let (listener, id) = session.withLock { state -> (TaskLoop.Handle?, String?) in
            defer {
                state.closed = true
                state.listener = nil
            }
            return (state.listener, state.closed ? nil : state.id)
        }
        listener?.cancel()
        serverRequests.close()
        if id != nil {
            _ = try? await client.response(for: Message(path: path, headers: sessionHeaders(base: headers), method: .delete))
        }
        connection.close(reason: "it was closed")
    }

    /// The header fields of every message after `initialize`: the session and the negotiated protocol version.
    func sessionHeaders(base: Headers) -> Headers {
        var fields = base
        let (id, version) = session.withLock { ($0.id, $0.protocolVersion) }
        if let id { fields.set("Mcp-Session-Id", id) }
        if let version { fields.set("MCP-Protocol-Version", version) }
        return fields
    }

    /// The server answered `404` to a message that carried a session id: the session is gone.
    struct SessionExpired: Error {
        let error: ParleyError
    }

    /// A message to the MCP endpoint; the channel reads every status itself.
    struct Message: Endpoint {
        typealias Response = Data
        let path: Path
        let headers: Headers
        var method: HTTPRequest.Method = .post
        var message: Data?
        var body: RequestBody { message.map { .bytes($0, contentType: "application/json") } ?? .none }
        var acceptableStatusCodes: StatusCodes? { .any }
        var name: String { "MCP \(method.rawValue)" }
    }
}
