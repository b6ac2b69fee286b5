public import Foundation
public import Parley
public import ParleyJSONRPC

/// JSON-RPC over a pair of byte streams — a child process's stdin/stdout, pipes, a socket — in either
/// framing (``JSONRPCFraming``). One channel multiplexes any number of concurrent calls, routed by id.
///
/// Both sides may send requests and notifications: the peer's requests are answered by `router` (or with
/// `-32601 Method not found` when there is none), its notifications arrive on ``incoming``. When the input
/// ends or breaks, every pending call fails at once with ``/Parley/ParleyError/Kind/transport``.
///
/// To talk to a program of your own, ``launch(executable:arguments:environment:currentDirectory:standardError:framing:router:maxMessageSize:)``
/// starts it with pipes for its standard input and output, and ``shutdown(gracePeriod:)`` ends it.
public final class JSONRPCStreamChannel: JSONRPCConnectionChannel {
    private let framing: JSONRPCFraming
    package let connection: JSONRPCConnection
    /// Writes to the output in order, off Swift's threads (a peer that stops reading blocks `write(2)`).
    private let writer: StreamWriter
    /// The process, for a channel that launched one.
    let child: ChildProcess?

    /// The peer's notifications, in arrival order (its requests go to the router).
    ///
    /// One stream for the channel, with one consumer: two tasks iterating it share its notifications (each gets some),
    /// they do not each get all. To fan out, iterate it in one task and hand each notification on. It keeps the newest
    /// 4096 unread notifications, 32 MiB at most: a channel whose notifications nobody reads does not grow without bound.
    public var incoming: AsyncStream<JSONRPCIncoming> { connection.incoming }

    /// A channel reading messages from `input` and writing them to `output`.
    ///
    /// - Parameters:
    ///   - input: Where the peer's messages are read from (such as a pipe's reading end).
    ///   - output: Where messages to the peer are written.
    ///   - framing: How messages are delimited on both streams.
    ///   - router: Answers the peer's requests.
    ///   - maxMessageSize: The largest message accepted from the peer (default 64 MiB).
    public convenience init(
        input: FileHandle,
        output: FileHandle,
        framing: JSONRPCFraming,
        router: JSONRPCRouter? = nil,
        maxMessageSize: Int = 64 * 1024 * 1024
    ) {
        self.init(
            input: input,
            output: output,
            framing: framing,
            connection: JSONRPCConnection(router: router),
            maxMessageSize: maxMessageSize,
            child: nil
        )
    }

    /// A channel whose reader thread starts at once; `child` is the process at the other end, if we launched it.
    init(
        input: FileHandle,
        output: FileHandle,
        framing: JSONRPCFraming,
        connection: JSONRPCConnection,
        maxMessageSize: Int,
        child: ChildProcess?
    ) {
        self.writer = StreamWriter(
            output,
            label: "parley.jsonrpc.stream-channel.write",
            closedReason: "The JSON-RPC channel is closed: it was closed."
        )
        self.framing = framing
        self.connection = connection
        self.child = child
        // The connection's writer holds neither the channel nor the child process: dropping the channel closes a
        // launched child's input, which ends the child, which ends the reader's input.
        let writer = self.writer
        let write: JSONRPCConnection.Writer = { data throws(ParleyError) in try await writer.write(framing.frame(data)) }
        connection.opened(write)
        // Blocking reads on a thread of their own (never on Swift's threads), which routes each message as it arrives:
        // answers resume their callers at once. The peer's requests go to the connection's tasks, which run their
        // handlers in a task group of their own; the thread never waits for them, and a request beyond the limit
        // (1024 at once) is answered at once with -32000: a peer that floods us with requests gets refusals, not our
        // memory.
        let (handlings, handlingsContinuation) = AsyncStream.makeStream(of: JSONRPCInbound.Handling.self)
        let parser = FrameParser(framing: framing, maxMessageSize: maxMessageSize)
        let childExit = child?.exit
        let childName = child?.name ?? ""
        let thread = Thread { [weak self] in
            var parser = parser
            defer { handlingsContinuation.finish() }
            while true {
                let chunk = StreamIO.read(input)
                guard let chunk, !chunk.isEmpty else {
                    var reason = chunk == nil ? "reading from the peer failed" : "the peer closed its output"
                    if let childExit {
                        // The child's output ends when it exits: wait a moment for its status, to say how it ended.
                        reason =
                            childExit.wait(timeout: .seconds(1)).map { "the child process \(childName) \($0)" }
                            ?? "the child process \(childName) closed its output"
                    }
                    connection.close(reason: reason)
                    return
                }
                guard self != nil else { return }
                let (messages, failure) = parser.feed(chunk)
                for message in messages {
                    guard let handling = connection.inbound.route(message, write: write) else { continue }
                    handlingsContinuation.yield(handling)
                }
                if let failure {
                    connection.close(reason: "the peer sent \(failure)")
                    return
                }
            }
        }
        thread.name = "parley.jsonrpc.reader"
        thread.start()
        connection.tasks.run { await connection.inbound.run(handlings) }
    }

    deinit {
        if child != nil { closeOutput() }
    }

    /// Sends a message; waits for the answer to `ids` when there are any.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await exchangeOnConnection(message, ids: ids)
    }

    /// Answers the peer's requests for `router`'s methods too (``/ParleyJSONRPC/JSONRPCPushChannel/answerPeerRequests(with:)``).
    public func answerPeerRequests(with router: JSONRPCRouter) {
        connection.answerAlso(router)
    }

    /// The peer's notifications that `matcher` accepts for `key`, until the subscription is cancelled.
    public func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription? {
        try watchOnConnection(matcher, key: key)
    }

    /// Subscribes with `method`: the notifications that `matcher` assigns to the subscription arrive on the returned
    /// sequence, not on ``incoming``, from the subscribe call's answer on (notifications that overtake the answer are
    /// held for it). When the consumer stops iterating, the `unsubscribe` method (if given) is called with the key as
    /// its one positional parameter.
    ///
    /// ```swift
    /// let ticks = try await channel.subscribe(JSONRPCDynamicMethod("subscribe", params: ["ticks"]), notifications: .method("tick"))
    /// for try await tick in ticks { print(tick.params ?? .null) }
    /// ```
    ///
    /// A subscription keeps at most 4096 unread notifications (32 MiB): one whose consumer falls further behind ends with
    /// ``/Parley/ParleyError/Kind/transport`` rather than drop notifications unnoticed.
    ///
    /// - Throws: The subscribe call's failure (a `ParleyError` of kind `jsonRPCError` when the peer refused).
    public func subscribe<Method: JSONRPCMethod>(
        _ method: Method,
        notifications matcher: JSONRPCSubscriptionMatcher,
        unsubscribe: String? = nil
    ) async throws(ParleyError) -> JSONRPCSubscription {
        try await subscribeOnConnection(method, notifications: matcher, unsubscribe: unsubscribe, backfill: nil)
    }

    /// Stops waiting: every pending call fails with ``/Parley/ParleyError/Kind/transport``, and so does every later one.
    ///
    /// For a channel made by ``launch(executable:arguments:environment:currentDirectory:standardError:framing:router:maxMessageSize:)``
    /// this also closes the child's standard input, which tells a well-behaved child to exit (see
    /// ``shutdown(gracePeriod:)`` to wait for that). Otherwise closing the file handles is the caller's (or
    /// the child process's) business.
    public func close() {
        connection.close(reason: "it was closed")
        if child != nil { closeOutput() }
    }

    private func closeOutput() {
        writer.close()
    }
}
