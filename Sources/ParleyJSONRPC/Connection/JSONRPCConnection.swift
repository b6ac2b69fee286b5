package import Parley

/// The connection of a connection-oriented JSON-RPC channel (byte streams, WebSocket, MCP Streamable HTTP): its
/// ``JSONRPCConnectionState`` behind one lock, its life cycle (opened, lost, closed), and the delivery of the
/// notifications it releases. Its three jobs are views over it, each in a file of its own: ``calls`` (the call table:
/// begin, answer, abandon, lost), ``inbound`` (scan, route, admit the peer's requests) and ``subscriptions`` (watch,
/// subscribe, resubscribe, backfill).
///
/// ## The locking rule, written once
///
/// Every event is a mutating method of the state that returns what to do instead of doing it (async-http-client's
/// `Transaction` and `Transaction+StateMachine`). ``apply(_:)`` runs an event under the lock and returns its action;
/// the caller acts after the lock is released: resuming a continuation, finishing a stream (which runs its termination
/// handler, which takes this lock again), writing, calling the peer.
///
/// One action is done under the lock, in ``update(_:)`` and nowhere else: handing on the notifications an event
/// releases (``JSONRPCConnectionState/Release``), to subscriptions' streams and to ``incoming``. A yield never
/// suspends nor calls back, and yielding under the same lock that routed a notification is what keeps arrival order:
/// a notification routed by a later event cannot overtake those an earlier event released. A subscription that
/// fell behind is finished after the lock, like every other action.
package final class JSONRPCConnection: Sendable {
    package typealias Writer = JSONRPCConnectionState.Writer

    private let state: LockedState<JSONRPCConnectionState>
    private let unread: UnreadNotifications
    /// Answers the peer's requests: the channel's router, with the methods added since (``answerAlso(_:)``).
    var router: JSONRPCRouter { routers.withLock { $0 } }
    private let routers: LockedState<JSONRPCRouter>
    /// The peer's requests being handled, for its cancellations.
    let requests = JSONRPCRequestTasks()
    /// The work of this connection that outlives the calls that start it: its channel's reading loop, the handling
    /// of the peer's requests, unsubscribe calls, resubscriptions.
    package let tasks = TaskLoop()
    /// The peer's notifications that belong to no subscription, in arrival order.
    package let incoming: AsyncStream<JSONRPCIncoming>
    /// The most unread notifications a subscription (or ``incoming``) keeps.
    package let maxUnread: Int
    /// The most bytes of unread notifications a subscription (or ``incoming``) keeps (a notification weighs what its
    /// message did; one larger than this is kept alone).
    package let maxUnreadBytes: Int

    /// A connection being opened, or (with `writer`) one that is open.
    package init(
        router: JSONRPCRouter?,
        writer: Writer? = nil,
        maxUnread: Int = 4096,
        maxUnreadBytes: Int = 32 << 20,
        maxPeerRequests: Int = 1024
    ) {
        self.routers = LockedState(router ?? JSONRPCRouter())
        self.maxUnread = maxUnread
        self.maxUnreadBytes = maxUnreadBytes
        state = LockedState(JSONRPCConnectionState(writer: writer, maxPeerRequests: maxPeerRequests))
        unread = UnreadNotifications(maxCount: maxUnread, maxBytes: maxUnreadBytes)
        incoming = unread.stream
    }

    /// Answers the peer's requests for `extra`'s methods too (an ``MCPClient``'s handlers); they replace the router's
    /// own handlers of the same names. Its encoder, decoder and cancellations do not change the router's.
    package func answerAlso(_ extra: JSONRPCRouter) {
        routers.withLock { $0.add(extra) }
    }

    /// The call table: messages written, and the answers they wait for.
    package var calls: JSONRPCCalls { JSONRPCCalls(connection: self) }

    /// What the peer sends: answers to their callers, notifications to their subscriptions, requests to the router.
    package var inbound: JSONRPCInbound { JSONRPCInbound(connection: self) }

    /// The subscriptions: watched keys, and subscribe calls issued again after a reconnect.
    package var subscriptions: JSONRPCSubscriptions { JSONRPCSubscriptions(connection: self) }

    // MARK: The locking rule

    /// Applies `event` to the state under the lock; returns what it says to do, to be done after the lock.
    func apply<Action, Failure: Error>(
        _ event: (inout JSONRPCConnectionState) throws(Failure) -> Action
    ) throws(Failure) -> Action {
        try state.withLock(event)
    }

    /// ``apply(_:)`` for an event that also releases notifications: they are handed on under the same lock (the one
    /// action done there: see the type's rule), the subscriptions that fell behind are finished after it.
    func update<Action>(
        _ event: (inout JSONRPCConnectionState) -> (JSONRPCConnectionState.Release, Action)
    ) -> Action {
        let (action, behind) = state.withLock { state in
            let (release, action) = event(&state)
            var behind: [JSONRPCConnectionState.Notifications] = []
            for (id, continuation, notification) in release.routed
            where give(notification, to: id, continuation, in: &state) {
                behind.append(continuation)
            }
            for notification in release.unowned { unread.push(notification) }
            if release.endsIncoming { unread.finish() }
            return (action, behind)
        }
        for continuation in behind { fellBehind(continuation) }
        return action
    }

    /// Yields `notification` to subscription `id` (under the state's lock); whether it fell behind: its consumer
    /// left ``maxUnread`` notifications, or ``maxUnreadBytes``, unread.
    private func give(
        _ notification: JSONRPCIncoming,
        to id: Int,
        _ continuation: JSONRPCConnectionState.Notifications,
        in state: inout JSONRPCConnectionState
    ) -> Bool {
        switch continuation.yield(notification) {
        case .dropped: return true
        case .enqueued(let remaining):
            return state.delivered(notification.byteCount, to: id, held: maxUnread - remaining, maxBytes: maxUnreadBytes)
        case .terminated: return false
        @unknown default: return false
        }
    }

    /// Ends a subscription whose consumer fell ``maxUnread`` behind with an error that says so (dropping
    /// notifications silently would hide a gap).
    private func fellBehind(_ continuation: JSONRPCConnectionState.Notifications) {
        continuation.finish(
            throwing: ParleyError(
                .transport,
                "The subscription's consumer fell behind: more than \(maxUnread) notifications (or \(maxUnreadBytes >> 20) MiB "
                    + "of them) waited unread, so the "
                    + "subscription ended rather than drop them unnoticed. Read it faster (hand slow work to another task), "
                    + "then subscribe again and backfill what was missed."
            )
        )
    }

    // MARK: The life cycle

    package var isOpen: Bool { apply { $0.isOpen } }

    package var isClosed: Bool { apply { $0.closedReason != nil } }

    /// Connections opened so far.
    package var generation: Int { apply { $0.generation } }

    /// A connection opened with `writer`: messages waiting for it go out. Returns the ids of the subscriptions to
    /// issue again (after a reconnect) with ``JSONRPCSubscriptions/resubscribe(_:generation:)``.
    @discardableResult
    package func opened(_ writer: @escaping Writer) -> (generation: Int, resubscribe: [Int]) {
        let (opened, generation) = apply { ($0.opened(writer), $0.generation) }
        for waiter in opened.waiters { waiter.resume() }
        return (generation, opened.resubscribe)
    }

    /// The connection ended and another will be tried: pending calls fail, new ones wait for it.
    package func connectionLost(reason: String) {
        let failure = JSONRPCConnectionState.lost(reason: reason)
        for continuation in apply({ $0.connectionLost(reason: reason) }) { continuation.resume(throwing: failure) }
    }

    /// Fails every pending call with `reason` and ends ``incoming`` and every subscription; later calls fail at once.
    package func close(reason: String) {
        // The held notifications go to `incoming`, and it ends, in one update: one routed meanwhile cannot overtake them.
        let closed = update { state -> (JSONRPCConnectionState.Release, JSONRPCConnectionState.Closing?) in
            var release = JSONRPCConnectionState.Release()
            guard let closing = state.close(reason: reason) else { return (release, nil) }
            release.unowned = closing.held
            release.endsIncoming = true
            return (release, closing)
        }
        guard let closing = closed else { return }
        for waiter in closing.writerWaiters { waiter.resume() }
        let lost = JSONRPCConnectionState.lost(reason: reason)
        for continuation in closing.answers { continuation.resume(throwing: lost) }
        for continuation in closing.subscriptions { continuation.finish(throwing: closing.failure) }
    }
}
