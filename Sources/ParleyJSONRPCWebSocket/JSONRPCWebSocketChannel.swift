import Logging
import NIOCore
import NIOWebSocket
public import Parley
public import ParleyJSONRPC
import WSClient

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// JSON-RPC over one WebSocket connection (text messages), with hummingbird-project's `WSClient`.
///
/// One connection multiplexes any number of concurrent calls, routed by id. The server's notifications
/// arrive on ``incoming``, or on a ``/ParleyJSONRPC/JSONRPCSubscription`` made with ``subscribe(_:notifications:unsubscribe:backfill:)``;
/// its requests are answered by `router`. When the connection drops, every pending call fails at once with
/// ``/Parley/ParleyError/Kind/transport``.
///
/// Without a reconnect policy the channel then closes: later calls fail, ``incoming`` and every subscription
/// end. With one (``/ParleyJSONRPC/JSONRPCReconnectPolicy``), the channel connects again with backoff, calls made meanwhile
/// wait for the new connection, the subscriptions are issued again and their sequences continue; it closes
/// only when the policy gives up. ``events`` tells what the connection is doing.
///
/// ```swift
/// let channel = try await JSONRPCWebSocketChannel.connect(to: "ws://127.0.0.1:8080/rpc/ws", reconnect: .default)
/// let rpc = JSONRPCClient(channel: channel)
/// let sum = try await rpc.call(Sum(params: [1, 2]))
/// let heads = try await channel.subscribe(
///     JSONRPCDynamicMethod("eth_subscribe", params: ["newHeads"]),
///     notifications: .parameter("subscription", of: "eth_subscription"),
///     unsubscribe: "eth_unsubscribe"
/// )
/// for try await head in heads { print(head.params ?? .null) }   // continues across reconnects
/// ```
public final class JSONRPCWebSocketChannel: JSONRPCConnectionChannel {
    /// What the connection is doing, for logs and dashboards.
    public enum Event: Sendable, Equatable {
        /// A connection opened; `1` for the first, counting up on every reconnect.
        case connected(generation: Int)
        /// The connection ended; pending calls failed with `reason`.
        case disconnected(reason: String)
        /// Connecting again after `delay` (attempt counts failures in a row, from 1).
        case reconnecting(attempt: Int, delay: Duration)
        /// The active subscriptions were issued again on connection `generation`; `failed` were refused.
        case resubscribed(generation: Int, count: Int, failed: Int)
        /// The channel closed for good.
        case closed(reason: String)
    }

    /// The connection's loop, for ``close()``. (The connection's state, its phase included, is ``connection``'s.)
    private struct State {
        var closedByUser = false
        /// The loop that connects, reads and reconnects: work of the connection's task loop.
        var task: TaskLoop.Handle?
        /// The open connection's writer, for the close frame.
        var outbound: WebSocketOutboundWriter?
    }

    private let url: String
    private let configuration: WebSocketClientConfiguration
    private let maxMessageSize: Int
    private let reconnect: JSONRPCReconnectPolicy?
    package let connection: JSONRPCConnection
    private let state = LockedState(State())
    private let logger = Logger(label: "parley.jsonrpc.websocket")
    private let eventsContinuation: AsyncStream<Event>.Continuation

    /// The server's notifications that belong to no subscription, in arrival order; continues across
    /// reconnects and ends when the channel closes.
    ///
    /// One stream for the channel, with one consumer: two tasks iterating it share its notifications (each gets some),
    /// they do not each get all. To fan out, iterate it in one task and hand each notification on, or make a
    /// ``subscribe(_:notifications:unsubscribe:backfill:)`` per interest. It keeps the newest 4096 unread notifications
    /// (32 MiB at most): a channel whose notifications nobody reads does not grow without bound.
    public var incoming: AsyncStream<JSONRPCIncoming> { connection.incoming }

    /// What the connection does (the newest 256 events are kept for a slow reader).
    public let events: AsyncStream<Event>

    private init(
        url: String,
        configuration: WebSocketClientConfiguration,
        maxMessageSize: Int,
        reconnect: JSONRPCReconnectPolicy?,
        router: JSONRPCRouter?
    ) {
        self.url = url
        self.configuration = configuration
        self.maxMessageSize = maxMessageSize
        self.reconnect = reconnect
        connection = JSONRPCConnection(router: router)
        (events, eventsContinuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// Connects to `url` (`ws://…`) and returns once the WebSocket is open.
    ///
    /// - Parameters:
    ///   - url: The WebSocket URL, `ws://…` or `wss://…`.
    ///   - router: Answers the server's requests.
    ///   - headers: Extra header fields for the upgrade request (such as `Authorization`).
    ///   - reconnect: How to connect again after a drop; `nil` (the default) closes the channel instead.
    ///   - maxMessageSize: The largest message accepted from the server (default 16 MiB).
    ///   - pingInterval: How often a ping goes out; a connection whose pong has not come back by the next ping is
    ///     taken as dead (half-open: the peer vanished without closing) and dropped, so the reconnect policy starts.
    ///     30 s by default: a dead connection is noticed within a minute. `nil` sends no pings.
    /// - Throws: ``/Parley/ParleyError/Kind/transport`` when the first connection or its upgrade fails (it is not
    ///   retried: a wrong URL should fail at once); ``/Parley/ParleyError/Kind/invalidRequest`` for an illegal header.
    public static func connect(
        to url: String,
        router: JSONRPCRouter? = nil,
        headers: Headers = [:],
        reconnect: JSONRPCReconnectPolicy? = nil,
        maxMessageSize: Int = 16 * 1024 * 1024,
        pingInterval: Duration? = .seconds(30)
    ) async throws(ParleyError) -> JSONRPCWebSocketChannel {
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = maxMessageSize
        configuration.additionalHeaders = try headers.httpFields()
        configuration.autoPing = pingInterval.map { .enabled(timePeriod: max($0, .milliseconds(10))) } ?? .disabled
        let channel = JSONRPCWebSocketChannel(
            url: url,
            configuration: configuration,
            maxMessageSize: maxMessageSize,
            reconnect: reconnect,
            router: router
        )
        let (opened, openedContinuation) = AsyncStream.makeStream(of: Result<Void, ParleyError>.self)
        let task = channel.connection.tasks.run { await channel.run(reportingFirstConnection: openedContinuation) }
        channel.state.withLock { $0.task = task }
        for await result in opened {
            try result.get()
            return channel
        }
        throw ParleyError(.transport, "The WebSocket to \(url) closed before it opened.")
    }

    /// Connects to `url` (`ws://…` or `wss://…`) and returns once the WebSocket is open, as the `String` form does,
    /// with a `URL`, as a Parley `Client` takes one.
    public static func connect(
        to url: URL,
        router: JSONRPCRouter? = nil,
        headers: Headers = [:],
        reconnect: JSONRPCReconnectPolicy? = nil,
        maxMessageSize: Int = 16 * 1024 * 1024,
        pingInterval: Duration? = .seconds(30)
    ) async throws(ParleyError) -> JSONRPCWebSocketChannel {
        try await connect(
            to: url.absoluteString,
            router: router,
            headers: headers,
            reconnect: reconnect,
            maxMessageSize: maxMessageSize,
            pingInterval: pingInterval
        )
    }

    /// Sends a message; waits for the answer to `ids` when there are any. While the channel reconnects, the
    /// message waits for the new connection.
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

    /// Subscribes with `method` (such as `eth_subscribe`): the notifications that `matcher` assigns to the
    /// subscription arrive on the returned sequence, not on ``incoming``.
    ///
    /// With a reconnect policy the subscribe call is issued again on every new connection and the sequence
    /// continues; its new result becomes the subscription's key. The server's events between the drop and the new
    /// subscription are missed: the sequence says so with a gap marker (an element whose
    /// ``/ParleyJSONRPC/JSONRPCIncoming/isGap`` is `true`), or, with a `backfill` hook, holds the new notifications
    /// while the hook fetches what was missed from the last notification seen (its cursor: a block number, a
    /// sequence id) and hands the hook's notifications on first. When the consumer stops iterating, the
    /// `unsubscribe` method (if given) is called with the key as its one positional parameter.
    ///
    /// ```swift
    /// let heads = try await channel.subscribe(
    ///     JSONRPCDynamicMethod("eth_subscribe", params: ["newHeads"]),
    ///     notifications: .parameter("subscription", of: "eth_subscription"),
    ///     unsubscribe: "eth_unsubscribe",
    ///     backfill: { (last) async throws(ParleyError) in try await headsSince(last) }   // the heads after the last one seen
    /// )
    /// ```
    ///
    /// A subscription keeps at most 4096 unread notifications (32 MiB): one whose consumer falls further behind ends with
    /// ``/Parley/ParleyError/Kind/transport`` rather than drop notifications unnoticed.
    ///
    /// - Throws: The subscribe call's failure (a `ParleyError` of kind `jsonRPCError` when the server refused).
    public func subscribe<Method: JSONRPCMethod>(
        _ method: Method,
        notifications matcher: JSONRPCSubscriptionMatcher,
        unsubscribe: String? = nil,
        backfill: JSONRPCBackfill? = nil
    ) async throws(ParleyError) -> JSONRPCSubscription {
        try await subscribeOnConnection(method, notifications: matcher, unsubscribe: unsubscribe, backfill: backfill)
    }

    /// Closes the WebSocket (normal closure) and stops reconnecting; pending calls fail with
    /// ``/Parley/ParleyError/Kind/transport``, ``incoming`` and every subscription end.
    public func close() async {
        let (task, writer) = state.withLock { state in
            state.closedByUser = true
            return (state.task, state.outbound)
        }
        finish(reason: "it was closed")
        guard let task else { return }
        guard let writer else {
            task.cancel()
            return await task.wait()
        }
        // Not awaited: against a peer that stopped reading, even writing the close frame can wait.
        connection.tasks.run { try? await writer.close(.normalClosure, reason: nil) }
        // The server answers with its own close frame, or closes the connection. One that does neither (a half-open
        // connection, a dead peer) gets the close timeout, then the connection's task is cancelled; WSClient 1.6.2
        // keeps reading such a connection even then (README, known limitations), so the wait stays bounded.
        if await Self.finishes(task, within: Self.closeTimeout) { return }
        task.cancel()
        if await Self.finishes(task, within: Self.closeTimeout) { return }
        logger.warning("The WebSocket to \(url) did not finish its closing handshake; its connection is left to the system.")
    }

    /// Whether `task` ends within `limit` (waiting for it ends at the deadline: it is cancellable).
    private static func finishes(_ task: TaskLoop.Handle, within limit: Duration) async -> Bool {
        _ = try? await Deadline.run(within: limit, expired: { CancellationError() }) { await task.wait() }
        return task.isDone
    }

    /// How long ``close()`` waits for the server's part of the closing handshake.
    static let closeTimeout: Duration = .seconds(2)

    // MARK: The connection

    /// Connects, reads until the connection ends, and (with a policy) connects again, until closed.
    private func run(reportingFirstConnection opened: AsyncStream<Result<Void, ParleyError>>.Continuation) async {
        var failuresInARow = 0
        while true {
            let connectedAt = connection.generation
            var failure: (any Error)?
            do {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound,
                    outbound,
                    _ in
                    let write: JSONRPCConnection.Writer = { data throws(ParleyError) in try await Self.write(data, to: outbound)
                    }
                    self.state.withLock { $0.outbound = outbound }
                    let (current, resubscribe) = self.connection.opened(write)
                    self.eventsContinuation.yield(.connected(generation: current))
                    if current == 1 {
                        opened.yield(.success(()))
                        opened.finish()
                    } else {
                        self.resubscribe(resubscribe, generation: current)
                    }
                    var failure: (any Error)?
                    let ended = { (error: (any Error)?) in
                        failure = error
                        // Pending calls fail now, before the handlers of the peer's requests are awaited.
                        self.state.withLock { $0.outbound = nil }
                        self.connection.connectionLost(
                            reason: error.map { "the WebSocket failed: \($0)" } ?? "the server closed the WebSocket"
                        )
                    }
                    await self.connection.inbound.read(write: write, ended: ended) { route in
                        for try await message in inbound.messages(maxSize: self.maxMessageSize) {
                            switch message {
                            case .text(let text): route(Data(text.utf8))
                            case .binary(let buffer): route(Data(buffer.readableBytesView))
                            }
                        }
                    }
                    self.state.withLock { $0.outbound = nil }
                    if let failure { throw failure }
                }
            } catch {
                failure = error
            }
            let generation = connection.generation
            let wasConnected = generation > connectedAt
            if generation == 0 {
                let error = ParleyError(
                    .transport,
                    "The WebSocket to \(url) could not be opened: \(failure.map { "\($0)" } ?? "it closed during the upgrade").",
                    underlying: failure
                )
                opened.yield(.failure(error))
                opened.finish()
                finish(reason: "the WebSocket could not be opened")
                return
            }
            let reason =
                if let failure { wasConnected ? "the WebSocket failed: \(failure)" : "reconnecting failed: \(failure)" } else {
                    "the server closed the WebSocket"
                }
            if wasConnected {
                failuresInARow = 0
                disconnected(reason: reason)
            }
            guard let policy = reconnect, !state.withLock({ $0.closedByUser }) else {
                finish(reason: reason)
                return
            }
            failuresInARow += 1
            if let maxAttempts = policy.maxAttempts, failuresInARow > maxAttempts {
                finish(reason: "\(reason); gave up after \(maxAttempts) reconnect attempt\(maxAttempts == 1 ? "" : "s")")
                return
            }
            let delay = policy.delay(beforeAttempt: failuresInARow)
            eventsContinuation.yield(.reconnecting(attempt: failuresInARow, delay: delay))
            do {
                try await Task.sleep(for: delay)
            } catch {
                finish(reason: "it was closed while reconnecting")
                return
            }
        }
    }

    /// The connection ended and another will be tried: pending calls fail, new ones wait.
    private func disconnected(reason: String) {
        connection.connectionLost(reason: reason)
        eventsContinuation.yield(.disconnected(reason: reason))
    }

    /// Closes for good: waiting and pending calls fail, streams end.
    private func finish(reason: String) {
        guard !connection.isClosed else { return }
        connection.close(reason: reason)
        eventsContinuation.yield(.closed(reason: reason))
        eventsContinuation.finish()
    }

    /// Issues the active subscriptions again on a new connection, in the connection's loop.
    private func resubscribe(_ ids: [Int], generation: Int) {
        guard !ids.isEmpty else { return }
        connection.tasks.run { [self] in
            let (count, failed) = await connection.subscriptions.resubscribe(ids, generation: generation)
            eventsContinuation.yield(.resubscribed(generation: generation, count: count, failed: failed))
        }
    }

    private static func write(_ data: Data, to outbound: WebSocketOutboundWriter) async throws(ParleyError) {
        do {
            try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
        } catch {
            throw ParleyError(.transport, "Writing to the WebSocket failed: \(error).", underlying: error)
        }
    }
}
