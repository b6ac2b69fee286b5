package import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Everything a connection-oriented channel (byte streams, WebSocket, MCP) knows about its connection, as one value:
/// the connection's phase, the calls waiting for their answers by id, the subscriptions and the notifications held
/// for them, and how many of the peer's requests are being handled.
///
/// Each event is a mutating method that returns what to do (resume these continuations, yield this notification)
/// instead of doing it, so that ``JSONRPCConnection`` applies events under one lock and acts outside it, and tests
/// feed it events directly. Nothing here suspends, and every buffer it keeps is bounded.
package struct JSONRPCConnectionState: Sendable {
    /// Writes one message on the connection.
    package typealias Writer = @Sendable (Data) async throws(ParleyError) -> Void
    package typealias AnswerContinuation = CheckedContinuation<JSONRPCReply, any Error>
    package typealias WriterContinuation = CheckedContinuation<Void, any Error>
    package typealias Notifications = AsyncThrowingStream<JSONRPCIncoming, any Error>.Continuation
    /// Issues a subscription's subscribe call (again, after a reconnect); returns its key.
    package typealias SubscribeCall = @Sendable () async throws(ParleyError) -> JSONValue

    /// The connection: being opened (calls wait for it), open, or closed for good.
    package enum Phase: Sendable {
        case connecting(waiters: [Int: WriterContinuation])
        case open(Writer)
        case closed(reason: String)
    }

    /// A call waiting for its answer: registered before its message is written, so an answer that arrives before
    /// the caller suspends is kept, not lost.
    private enum Call {
        case waiting(AnswerContinuation?)
        case answered(Result<JSONRPCReply, ParleyError>)
    }

    /// A subscription: its notifications go to `continuation`; `key` is the subscribe call's result, `nil` while
    /// that call (or its repetition after a reconnect) is in flight.
    private struct Subscription {
        let matcher: JSONRPCSubscriptionMatcher
        var key: JSONValue?
        /// How to subscribe again after a reconnect; `nil` for a watch (a progress token), whose key was known
        /// beforehand.
        var subscribeCall: SubscribeCall?
        var backfill: JSONRPCBackfill?
        /// The last notification handed to it: a backfill's cursor.
        var last: JSONRPCIncoming?
        /// Whether a notification of its method went to `incoming` while it awaited its key, the held ones being at
        /// ``maxHeld``: it gets a gap marker after the held ones once bound.
        var missedWhilePending = false
        /// The sizes of what its stream holds unread.
        var unread = UnreadSizes()
        let continuation: Notifications
    }

    /// Where a notification goes.
    package enum NotificationRoute {
        case subscription(id: Int, Notifications)
        case held
        case incoming
    }

    /// Notifications to hand on once a subscription's key is known.
    package struct Release {
        package var routed: [(id: Int, continuation: Notifications, notification: JSONRPCIncoming)] = []
        package var unowned: [JSONRPCIncoming] = []
        /// `incoming` ends after the unowned ones: the channel closed.
        package var endsIncoming = false
    }

    /// What to do when the channel closes for good.
    package struct Closing {
        /// Messages waiting for a connection: resumed, they find the channel closed.
        package var writerWaiters: [WriterContinuation] = []
        package var answers: [AnswerContinuation] = []
        package var subscriptions: [Notifications] = []
        package var held: [JSONRPCIncoming] = []
        package var failure: ParleyError
    }

    package private(set) var phase: Phase
    private var calls: [Int: Call] = [:]
    private var callByID: [JSONRPCID: Int] = [:]
    private var idsOfCall: [Int: [JSONRPCID]] = [:]
    private var subscriptions: [Int: Subscription] = [:]
    /// Notifications that may belong to a subscription whose subscribe call has not been answered yet.
    private var held: [JSONRPCIncoming] = []
    private var nextToken = 0
    /// The peer's requests being handled now.
    package private(set) var peerRequests = 0
    /// Connections opened so far.
    package private(set) var generation = 0

    /// The most notifications held for subscriptions not yet answered; later ones go to `incoming`.
    package let maxHeld: Int
    /// The most requests of the peer handled at once; one more is answered at once with ``busyError(limit:)``, and
    /// the reading goes on (a reader that waited for a slot could not deliver the answers the handlers wait for).
    package let maxPeerRequests: Int

    /// A connection being opened, or (with `writer`) one that is open.
    package init(writer: Writer? = nil, maxHeld: Int = 1024, maxPeerRequests: Int = 1024) {
        phase = writer.map { .open($0) } ?? .connecting(waiters: [:])
        if writer != nil { generation = 1 }
        self.maxHeld = maxHeld
        self.maxPeerRequests = maxPeerRequests
    }

    package var isOpen: Bool { if case .open = phase { true } else { false } }

    package var closedReason: String? { if case .closed(let reason) = phase { reason } else { nil } }

    private mutating func token() -> Int {
        nextToken += 1
        return nextToken
    }

    // MARK: The connection

    /// What a message to send finds.
    package enum Begin {
        /// Open: write with `writer`; `call` is the token of the call waiting for its answer (none for notifications).
        case ready(Writer, call: Int?)
        case closed(String)
        /// Connecting: wait with ``waitForWriter(_:token:isCancelled:)`` under this token, then begin again.
        case wait(token: Int)
    }

    /// A message that waits for the answers to `ids` (none: a notification) is about to be sent: on an open connection
    /// its call is registered at once, so that losing the connection after this fails it.
    package mutating func begin(_ ids: [JSONRPCID]) throws(ParleyError) -> Begin {
        switch phase {
        case .open(let writer): .ready(writer, call: ids.isEmpty ? nil : try register(ids))
        case .closed(let reason): .closed(reason)
        case .connecting: .wait(token: token())
        }
    }

    /// Parks `continuation` until the connection opens or closes; returns what to resume it with when that is known now.
    package mutating func waitForWriter(
        _ continuation: WriterContinuation,
        token: Int,
        isCancelled: Bool
    ) -> Result<Void, ParleyError>? {
        switch phase {
        case .open, .closed:
            return .success(())
        case .connecting(var waiters):
            if isCancelled { return .failure(Self.cancelledWhileConnecting) }
            waiters[token] = continuation
            phase = .connecting(waiters: waiters)
            return nil
        }
    }

    /// The waiter `token` was cancelled: its continuation, to fail, if it was parked.
    package mutating func stopWaitingForWriter(_ token: Int) -> WriterContinuation? {
        guard case .connecting(var waiters) = phase, let continuation = waiters.removeValue(forKey: token) else { return nil }
        phase = .connecting(waiters: waiters)
        return continuation
    }

    package static let cancelledWhileConnecting = ParleyError(
        .cancelled,
        "The JSON-RPC call was cancelled while the channel connected."
    )

    /// A connection opened with `writer`: returns the messages waiting for it, and (after a reconnect) the ids of the
    /// subscriptions to issue again, whose keys are now unknown until they are answered.
    package mutating func opened(_ writer: @escaping Writer) -> (waiters: [WriterContinuation], resubscribe: [Int]) {
        guard case .connecting(let waiters) = phase else { return ([], []) }
        phase = .open(writer)
        generation += 1
        guard generation > 1 else { return (Array(waiters.values), []) }
        let again = subscriptions.filter { $0.value.subscribeCall != nil }.keys.sorted()
        for id in again { subscriptions[id]?.key = nil }
        return (Array(waiters.values), again)
    }

    /// The connection ended and another will be tried: new messages wait; returns the pending calls to fail.
    package mutating func connectionLost(reason: String) -> [AnswerContinuation] {
        if case .open = phase { phase = .connecting(waiters: [:]) }
        return failCalls(Self.lost(reason: reason))
    }

    /// How a call fails when its connection ends.
    package static func lost(reason: String) -> ParleyError {
        ParleyError(.transport, "The JSON-RPC connection closed while a call waited for its answer: \(reason).")
    }

    /// Closes for good; `nil` when it was closed already.
    package mutating func close(reason: String) -> Closing? {
        if case .closed = phase { return nil }
        var closing = Closing(failure: ParleyError(.transport, "The JSON-RPC channel closed: \(reason)."))
        if case .connecting(let waiters) = phase { closing.writerWaiters = Array(waiters.values) }
        phase = .closed(reason: reason)
        closing.answers = failCalls(Self.lost(reason: reason))
        closing.subscriptions = subscriptions.keys.sorted().compactMap { subscriptions[$0]?.continuation }
        subscriptions = [:]
        closing.held = held
        held = []
        return closing
    }

    private mutating func failCalls(_ failure: ParleyError) -> [AnswerContinuation] {
        var continuations: [AnswerContinuation] = []
        for (token, call) in calls {
            switch call {
            case .waiting(let continuation?):
                continuations.append(continuation)
                calls[token] = nil
            case .waiting(nil):
                calls[token] = .answered(.failure(failure))
            case .answered:
                break
            }
        }
        callByID = [:]
        idsOfCall = [:]
        return continuations
    }

    // MARK: Calls

    /// A call about to be written that waits for the answers to `ids`: its token.
    private mutating func register(_ ids: [JSONRPCID]) throws(ParleyError) -> Int {
        if let reason = closedReason { throw ParleyError(.transport, "The JSON-RPC channel is closed: \(reason).") }
        if let busy = ids.first(where: { callByID[$0] != nil }) {
            throw ParleyError(
                .invalidRequest,
                "A JSON-RPC call with the id \(busy) is already waiting for its answer on this channel, so the answer "
                    + "could not be told apart. Use one id generator per channel (clients sharing a channel should share it)."
            )
        }
        let token = token()
        calls[token] = .waiting(nil)
        for id in ids { callByID[id] = token }
        idsOfCall[token] = ids
        return token
    }

    /// The caller of `token` suspends with `continuation`: returns what to resume it with when the outcome is known.
    package mutating func suspend(_ token: Int, _ continuation: AnswerContinuation) -> Result<JSONRPCReply, ParleyError>? {
        switch calls[token] {
        case .answered(let result)?:
            calls[token] = nil
            return result
        case .waiting?:
            calls[token] = .waiting(continuation)
            return nil
        case nil:
            return .failure(ParleyError(.cancelled, "The JSON-RPC call was cancelled."))
        }
    }

    /// The call `token` stopped waiting (its write failed or it was cancelled): its continuation, to fail, if it
    /// was suspended.
    package mutating func abandon(_ token: Int) -> AnswerContinuation? {
        for id in idsOfCall.removeValue(forKey: token) ?? [] where callByID[id] == token { callByID[id] = nil }
        guard case .waiting(let continuation)? = calls.removeValue(forKey: token) else { return nil }
        return continuation
    }

    /// An answer carrying `ids` arrived: the continuation to resume with it, if its caller is suspended (otherwise
    /// it is kept for the caller, or dropped when nobody waits for these ids).
    package mutating func answer(_ ids: [JSONRPCID], _ reply: JSONRPCReply) -> AnswerContinuation? {
        for id in ids {
            guard let token = callByID[id] else { continue }
            for other in idsOfCall.removeValue(forKey: token) ?? [] where callByID[other] == token { callByID[other] = nil }
            switch calls[token] {
            case .waiting(let continuation?)?:
                calls[token] = nil
                return continuation
            case .waiting(nil)?:
                calls[token] = .answered(.success(reply))
                return nil
            default:
                return nil
            }
        }
        return nil
    }

    /// How many calls wait for their answers.
    package var pendingCalls: Int { calls.count }

    // MARK: The peer's requests

    /// One of the peer's requests is about to be handled: `false` when ``maxPeerRequests`` are handled already.
    package mutating func peerRequestStarted() -> Bool {
        guard peerRequests < maxPeerRequests else { return false }
        peerRequests += 1
        return true
    }

    /// A request of the peer was answered: its slot is free.
    package mutating func peerRequestFinished() {
        peerRequests = max(0, peerRequests - 1)
    }

    /// The answer to a request of the peer beyond the limit: `-32000`, so that it can send it again later.
    package static func busyError(limit: Int) -> JSONRPCError {
        JSONRPCError(
            code: -32000,
            message: "Too many concurrent requests: at most \(limit) are handled at once; send it again once one is answered"
        )
    }

    /// The answer to a request (or the requests of a batch) beyond the concurrency limit.
    package static func busyAnswer(to parsed: JSONValue, limit: Int) -> Data? {
        let error = busyError(limit: limit)
        func one(_ element: JSONValue) -> Data? {
            guard case .object(let members) = element, let id = members["id"] else { return nil }
            return JSONRPCRouter.errorResponse(error, id: id)
        }
        guard case .array(let elements) = parsed else { return one(parsed) }
        let answers = elements.compactMap(one)
        guard !answers.isEmpty else { return nil }
        return Data("[".utf8) + answers.joined(separator: Data(",".utf8)) + Data("]".utf8)
    }

    // MARK: Subscriptions

    /// Registers a subscription before its subscribe call is sent, so notifications that overtake the call's answer
    /// are held for it; a watch (`key` known) is bound at once. Returns its id.
    package mutating func addSubscription(
        _ matcher: JSONRPCSubscriptionMatcher,
        key: JSONValue? = nil,
        subscribeCall: SubscribeCall? = nil,
        backfill: JSONRPCBackfill? = nil,
        continuation: Notifications
    ) throws(ParleyError) -> Int {
        if let reason = closedReason { throw ParleyError(.transport, "The JSON-RPC channel is closed: \(reason).") }
        let id = token()
        subscriptions[id] = Subscription(
            matcher: matcher,
            key: key,
            subscribeCall: subscribeCall,
            backfill: backfill,
            continuation: continuation
        )
        return id
    }

    /// Subscription `id`'s subscribe call answered `key`: its notifications (held ones first) go to it.
    ///
    /// With `generation`, only while that connection is the current one: the answer to a subscribe call issued on a
    /// connection that has since been replaced names a key the server has forgotten.
    package mutating func bind(_ id: Int, key: JSONValue, generation: Int? = nil) -> Release {
        if let generation, generation != self.generation { return Release() }
        subscriptions[id]?.key = key
        var release = releaseHeld()
        if let subscription = subscriptions[id], subscription.missedWhilePending {
            subscriptions[id]?.missedWhilePending = false
            release.routed.append((id, subscription.continuation, .gap(subscription.matcher.method)))
        }
        return release
    }

    /// Removes subscription `id`: its continuation and last key, and the held notifications now routable.
    package mutating func removeSubscription(_ id: Int) -> (continuation: Notifications?, key: JSONValue?, release: Release) {
        let removed = subscriptions.removeValue(forKey: id)
        return (removed?.continuation, removed?.key, releaseHeld())
    }

    package func key(of id: Int) -> JSONValue? { subscriptions[id]?.key }

    /// What issuing subscription `id` again needs: its subscribe call, its backfill hook, its last notification and
    /// its gap marker.
    package func resubscription(
        of id: Int
    ) -> (call: SubscribeCall, backfill: JSONRPCBackfill?, last: JSONRPCIncoming?, gap: JSONRPCIncoming)? {
        guard let subscription = subscriptions[id], let call = subscription.subscribeCall else { return nil }
        return (call, subscription.backfill, subscription.last, .gap(subscription.matcher.method))
    }

    /// Subscription `id`'s stream took a notification of `size` bytes and now holds `held`: whether what it holds
    /// unread is over `maxBytes`.
    package mutating func delivered(_ size: Int, to id: Int, held: Int, maxBytes: Int) -> Bool {
        guard subscriptions[id] != nil else { return false }
        subscriptions[id]?.unread.yielded(size, held: held)
        return (subscriptions[id]?.unread.bytes ?? 0) > maxBytes && held > 1
    }

    /// Hands `notification` (a gap marker, or a backfilled one) to subscription `id`: its continuation.
    package mutating func yield(_ notification: JSONRPCIncoming, to id: Int) -> Notifications? {
        if !notification.isGap { subscriptions[id]?.last = notification }
        return subscriptions[id]?.continuation
    }

    /// Where a notification from the peer goes: its subscription, held while a subscription of its method awaits
    /// its key (up to ``maxHeld``), or `incoming`.
    package mutating func notification(_ notification: JSONRPCIncoming) -> NotificationRoute {
        guard !subscriptions.isEmpty else { return .incoming }
        if let (id, subscription) = owner(of: notification) {
            subscriptions[id]?.last = notification
            return .subscription(id: id, subscription.continuation)
        }
        if mayBelongToPending(notification) {
            if held.count < maxHeld {
                held.append(notification)
                return .held
            }
            // Too many held: it goes to `incoming`, and the pending subscriptions of its method learn of the gap.
            for (id, subscription) in subscriptions
            where subscription.key == nil && subscription.matcher.method == notification.method {
                subscriptions[id]?.missedWhilePending = true
            }
        }
        return .incoming
    }

    /// Held notifications whose subscription is now known; those that may still belong to a pending one stay; the
    /// rest go to `incoming`.
    private mutating func releaseHeld() -> Release {
        var release = Release()
        var kept: [JSONRPCIncoming] = []
        for notification in held {
            if let (id, subscription) = owner(of: notification) {
                subscriptions[id]?.last = notification
                release.routed.append((id, subscription.continuation, notification))
            } else if mayBelongToPending(notification) {
                kept.append(notification)
            } else {
                release.unowned.append(notification)
            }
        }
        held = kept
        return release
    }

    private func owner(of notification: JSONRPCIncoming) -> (Int, Subscription)? {
        // In order of subscription, so that the oldest of two matching subscriptions gets it, every time.
        for id in subscriptions.keys.sorted() {
            guard let subscription = subscriptions[id], let key = subscription.key else { continue }
            if subscription.matcher.matches(notification, subscription: key) { return (id, subscription) }
        }
        return nil
    }

    private func mayBelongToPending(_ notification: JSONRPCIncoming) -> Bool {
        subscriptions.values.contains { $0.key == nil && $0.matcher.method == notification.method }
    }

    /// How many notifications are held.
    package var heldCount: Int { held.count }
}
