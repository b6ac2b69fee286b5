package import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What a connection-oriented channel (byte streams, WebSocket, MCP) shares: pending calls routed by id, the peer's
/// requests answered by a router, its notifications delivered to subscriptions or a stream, and failing every pending
/// call at once when the connection ends.
///
/// The state is one ``JSONRPCConnectionState`` behind one lock; this class applies events to it and does what they
/// return (resumes continuations, yields notifications) outside the lock.
package final class JSONRPCMultiplexer: Sendable {
    package typealias Writer = JSONRPCConnectionState.Writer

    private let state: LockedState<JSONRPCConnectionState>
    private let router: JSONRPCRouter
    /// The peer's requests being handled, for its cancellations.
    private let requests = JSONRPCRequestTasks()
    private let unread: UnreadNotifications
    package let incoming: AsyncStream<JSONRPCIncoming>
    /// The most unread notifications a subscription (or ``incoming``) keeps.
    package let maxUnread: Int
    /// The most bytes of unread notifications a subscription (or ``incoming``) keeps (a notification weighs what its
    /// message did; one larger than this is kept alone).
    package let maxUnreadBytes: Int

    /// A multiplexer for a connection being opened, or (with `writer`) one that is open.
    package init(
        router: JSONRPCRouter?,
        writer: Writer? = nil,
        maxUnread: Int = 4096,
        maxUnreadBytes: Int = 32 << 20,
        maxPeerRequests: Int = 1024
    ) {
        self.router = router ?? JSONRPCRouter()
        self.maxUnread = maxUnread
        self.maxUnreadBytes = maxUnreadBytes
        state = LockedState(JSONRPCConnectionState(writer: writer, maxPeerRequests: maxPeerRequests))
        unread = UnreadNotifications(maxCount: maxUnread, maxBytes: maxUnreadBytes)
        incoming = unread.stream
    }

    package var isOpen: Bool { state.withLock { $0.isOpen } }

    package var isClosed: Bool { state.withLock { $0.closedReason != nil } }

    /// Connections opened so far.
    package var generation: Int { state.withLock { $0.generation } }

    // MARK: The connection

    /// A connection opened with `writer`: messages waiting for it go out. Returns the ids of the subscriptions to
    /// issue again (after a reconnect) with ``resubscribe(_:)``.
    package func opened(_ writer: @escaping Writer) -> (generation: Int, resubscribe: [Int]) {
        let (opened, generation) = state.withLock { ($0.opened(writer), $0.generation) }
        for waiter in opened.waiters { waiter.resume() }
        return (generation, opened.resubscribe)
    }

    /// The connection ended and another will be tried: pending calls fail, new ones wait for it.
    package func connectionLost(reason: String) {
        let failure = JSONRPCConnectionState.lost(reason: reason)
        for continuation in state.withLock({ $0.connectionLost(reason: reason) }) { continuation.resume(throwing: failure) }
    }

    /// Fails every pending call with `reason` and ends ``incoming`` and every subscription; later calls fail at once.
    package func close(reason: String) {
        // The held notifications go to `incoming`, and it ends, under the lock: one routed meanwhile cannot overtake them.
        let closed = state.withLock { state -> JSONRPCConnectionState.Closing? in
            guard let closing = state.close(reason: reason) else { return nil }
            for notification in closing.held { unread.push(notification) }
            unread.finish()
            return closing
        }
        guard let closing = closed else { return }
        for waiter in closing.writerWaiters { waiter.resume() }
        let lost = JSONRPCConnectionState.lost(reason: reason)
        for continuation in closing.answers { continuation.resume(throwing: lost) }
        for continuation in closing.subscriptions { continuation.finish(throwing: closing.failure) }
    }

    // MARK: Calls

    /// Writes `message` on the connection (waiting for one being opened); waits for the answer to `ids` when there
    /// are any.
    package func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        while true {
            switch try state.withLock({ state throws(ParleyError) in try state.begin(ids) }) {
            case .closed(let reason):
                throw ParleyError(.transport, "The JSON-RPC channel is closed: \(reason).")
            case .wait(let token):
                try await waitForConnection(token)
            case .ready(let write, nil):
                try await write(message)
                return nil
            case .ready(let write, let call?):
                do {
                    try await write(message)
                } catch {
                    _ = state.withLock { $0.abandon(call) }
                    throw error
                }
                return try await answer(to: call)
            }
        }
    }

    private func answer(to call: Int) async throws(ParleyError) -> JSONRPCReply {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: JSONRPCConnectionState.AnswerContinuation) in
                    if let ready = state.withLock({ $0.suspend(call, continuation) }) {
                        continuation.resume(with: ready.mapError { $0 as any Error })
                    }
                }
            } onCancel: {
                state.withLock { $0.abandon(call) }?.resume(throwing: ParleyError(.cancelled, "The JSON-RPC call was cancelled."))
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The JSON-RPC channel failed: \(error)")
        }
    }

    private func waitForConnection(_ token: Int) async throws(ParleyError) {
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: JSONRPCConnectionState.WriterContinuation) in
                    let now = state.withLock { $0.waitForWriter(continuation, token: token, isCancelled: Task.isCancelled) }
                    if let now { continuation.resume(with: now.mapError { $0 as any Error }) }
                }
            } onCancel: {
                state.withLock { $0.stopWaitingForWriter(token) }?.resume(
                    throwing: JSONRPCConnectionState.cancelledWhileConnecting
                )
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "Waiting for the JSON-RPC connection failed: \(error)")
        }
    }

    // MARK: Reading

    /// The handling of one of the peer's requests: runs its handler, writes its answer, and frees its slot.
    package typealias Handling = @Sendable () async -> Void

    /// The reading loop of one connection: `frames` reads the connection and hands each message to `route`; the
    /// peer's requests are handled concurrently, in a task group this loop owns, and answered with `write`. The loop
    /// never waits for a handler: answers and notifications keep flowing whatever the handlers wait for (a handler
    /// that calls the peer back gets its answer), and a request beyond ``JSONRPCConnectionState/maxPeerRequests`` is
    /// answered at once with `-32000`. When `frames` returns or throws, `ended` runs (with the error), then the handlers
    /// still running are cancelled (their connection is gone) and awaited.
    package func read(
        write: @escaping Writer,
        ended: (_ failure: (any Error)?) -> Void,
        _ frames: (_ route: (Data) -> Void) async throws -> Void
    ) async {
        await withDiscardingTaskGroup { group in
            do {
                try await frames { message in
                    if let handling = self.route(message, write: write) { group.addTask(operation: handling) }
                }
                ended(nil)
            } catch {
                ended(error)
            }
            group.cancelAll()
        }
    }

    /// Runs the handlings a reader thread routed (``route(_:write:)``, in arrival order) in a task group of this task.
    /// Returns when `handlings` ends and every handler has finished.
    package func run(_ handlings: AsyncStream<Handling>) async {
        await withDiscardingTaskGroup { group in
            for await handling in handlings { group.addTask(operation: handling) }
        }
    }

    /// What a message from the peer leaves to do (``admit(_:write:)``).
    package enum Admitted: Sendable {
        /// An answer to write at once: the refusal of a request beyond the limit, or `-32700` for what is not JSON.
        case answer(Data)
        /// The handling of an admitted request, to run concurrently.
        case handling(Handling)
    }

    /// ``admit(_:write:)``, with an answer at once written by a handling of its own, to run concurrently.
    package func route(_ message: Data, write: @escaping Writer) -> Handling? {
        switch admit(message, write: write) {
        case nil: nil
        case .answer(let answer)?: { try? await write(answer) }
        case .handling(let handling)?: handling
        }
    }

    /// Routes one message from the peer, in arrival order, decoding it once at most: an answer goes to its caller
    /// undecoded (the caller decodes it with its typed decoders), a notification to its subscription or ``incoming``
    /// (a cancellation also cancels the request it names); a request takes one of the peer's slots and is reserved for
    /// its cancellations, and its handling is returned (its answer written with `write`, its slot freed after); beyond
    /// the limit, its answer `-32000` is returned.
    package func admit(_ message: Data, write: @escaping Writer) -> Admitted? {
        switch JSONRPCFrame.scan(message) {
        case .answers(let ids):
            let reply = JSONRPCReply(data: message)
            state.withLock { $0.answer(ids, reply) }?.resume(returning: reply)
            return nil
        case .malformed:
            // Not JSON: answer as the specification says; nobody waits on it.
            return .answer(JSONRPCRouter.errorResponse(.parseError(), id: .null))
        case .messages:
            break
        }
        // Beyond the limit, a request is refused from the id its bytes carry: a flood costs a scan each, not a decoding.
        if let id = JSONRPCFrame.requestID(message),
            let limit = state.withLock({ $0.peerRequests < $0.maxPeerRequests ? nil : $0.maxPeerRequests })
        {
            return JSONRPCConnectionState.busyAnswer(to: ["id": JSONValue(id)], limit: limit).map { .answer($0) }
        }
        guard let parsed = try? router.decoder.decode(JSONValue.self, from: message) else {
            return .answer(JSONRPCRouter.errorResponse(.parseError(), id: .null))
        }
        if case .object(let members) = parsed, case .string(let method)? = members["method"], members["id"] == nil {
            requests.cancel(method: method, params: members["params"], using: router.cancellations)
            var notification = JSONRPCIncoming(method: method, params: members["params"], id: nil)
            notification.byteCount = message.count
            notify(notification)
            return nil
        }
        guard state.withLock({ $0.peerRequestStarted() }) else {
            let limit = state.withLock { $0.maxPeerRequests }
            return JSONRPCConnectionState.busyAnswer(to: parsed, limit: limit).map { .answer($0) }
        }
        guard let handling = router.intake(parsed: parsed, tasks: requests) else {
            state.withLock { $0.peerRequestFinished() }
            return nil
        }
        return .handling { [state] in
            defer { state.withLock { $0.peerRequestFinished() } }
            if let answer = await handling() { try? await write(answer) }
        }
    }

    /// A notification: to the subscription it belongs to, held while a subscription of its method awaits its key, or
    /// to ``incoming``.
    ///
    /// Notifications are yielded under the state's lock (a yield never waits, nor calls back), so one that arrives later
    /// cannot overtake those released before it; a subscription that fell behind is finished after the lock.
    private func notify(_ notification: JSONRPCIncoming) {
        let behind = state.withLock { state -> JSONRPCConnectionState.Notifications? in
            switch state.notification(notification) {
            case .subscription(let id, let continuation):
                if give(notification, to: id, continuation, in: &state) { return continuation }
            case .held: break
            case .incoming: unread.push(notification)
            }
            return nil
        }
        if let behind { fellBehind(behind) }
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
    /// notifications silently would hide a gap). Not under the state's lock: finishing runs its termination handler.
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

    /// Yields what `release` hands on; called under the state's lock. Returns the subscriptions that fell behind.
    private func hand(
        _ release: JSONRPCConnectionState.Release,
        in state: inout JSONRPCConnectionState
    ) -> [JSONRPCConnectionState.Notifications] {
        var behind: [JSONRPCConnectionState.Notifications] = []
        for (id, continuation, notification) in release.routed where give(notification, to: id, continuation, in: &state) {
            behind.append(continuation)
        }
        for notification in release.unowned { unread.push(notification) }
        return behind
    }

    /// Applies `change` and hands on what it releases, under one lock.
    private func perform(_ change: (inout JSONRPCConnectionState) -> JSONRPCConnectionState.Release) {
        let behind = state.withLock { state in
            let release = change(&state)
            return hand(release, in: &state)
        }
        for continuation in behind { fellBehind(continuation) }
    }

    /// Removes subscription `id`, handing on the held notifications that it released; returns its continuation and
    /// last key.
    private func remove(_ id: Int) -> (continuation: JSONRPCConnectionState.Notifications?, key: JSONValue?) {
        let (continuation, key, behind) = state.withLock { state in
            let removed = state.removeSubscription(id)
            return (removed.continuation, removed.key, hand(removed.release, in: &state))
        }
        for continuation in behind { fellBehind(continuation) }
        return (continuation, key)
    }

    // MARK: Subscriptions

    /// The notifications `matcher` accepts for `key` (known beforehand, such as a progress token), until the
    /// subscription is cancelled.
    package func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: JSONRPCIncoming.self,
            bufferingPolicy: .bufferingNewest(maxUnread)
        )
        let id = try state.withLock { state throws(ParleyError) in
            try state.addSubscription(matcher, key: key, continuation: continuation)
        }
        continuation.onTermination = { [weak self] _ in _ = self?.removeSubscription(id) }
        perform { $0.bind(id, key: key) }
        return JSONRPCSubscription(stream: stream, key: { [weak self] in self?.key(of: id) }) { [weak self] in
            self?.removeSubscription(id)?.finish()
        }
    }

    /// Subscribes with `method` on `channel` (the channel this multiplexer serves): see
    /// `JSONRPCWebSocketChannel.subscribe(_:notifications:unsubscribe:backfill:)`.
    package func subscribe<Method: JSONRPCMethod>(
        _ method: Method,
        notifications matcher: JSONRPCSubscriptionMatcher,
        unsubscribe: String?,
        backfill: JSONRPCBackfill?,
        on channel: some JSONRPCChannel
    ) async throws(ParleyError) -> JSONRPCSubscription {
        // UUID ids: the channel's own calls can never collide with the ids of the user's clients.
        let rpc = JSONRPCClient(channel: channel, ids: JSONRPCUUIDIDs())
        let call = ResultAsJSON(base: method)
        let subscribeCall: JSONRPCConnectionState.SubscribeCall = { () throws(ParleyError) in try await rpc.call(call) }
        // Best effort: a failed unsubscribe leaves nothing to do on our side.
        let unsubscribeCall: @Sendable (JSONValue) async -> Void = { key in
            if let unsubscribe { _ = try? await rpc.call(JSONRPCDynamicMethod(unsubscribe, params: .array([key]))) }
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: JSONRPCIncoming.self,
            bufferingPolicy: .bufferingNewest(maxUnread)
        )
        let id = try state.withLock { state throws(ParleyError) in
            try state.addSubscription(matcher, subscribeCall: subscribeCall, backfill: backfill, continuation: continuation)
        }
        continuation.onTermination = { [weak self] _ in
            // The consumer stopped iterating, or the subscription failed or closed.
            guard let self, let key = self.removeSubscriptionKey(id), self.isOpen else { return }
            Task { await unsubscribeCall(key) }
        }
        do throws(ParleyError) {
            let key = try await subscribeCall()
            perform { $0.bind(id, key: key) }
        } catch {
            removeSubscription(id)?.finish(throwing: error)
            throw error
        }
        return JSONRPCSubscription(stream: stream, key: { [weak self] in self?.key(of: id) }) { [weak self] in
            guard let self else { return }
            let (continuation, key) = remove(id)
            continuation?.finish()
            guard let key, isOpen else { return }
            await unsubscribeCall(key)
        }
    }

    /// Issues the subscriptions `ids` again on a new connection (``opened(_:)`` named them): each gets a gap marker,
    /// or what its backfill hook fetched, before the notifications of its new key. Returns how many were subscribed
    /// again and how many failed.
    /// `generation` is the connection they are issued on: when another replaces it meanwhile, the answers are
    /// dropped (that connection's own resubscription binds its keys).
    package func resubscribe(_ ids: [Int], generation: Int) async -> (count: Int, failed: Int) {
        var count = 0
        var failed = 0
        for (index, id) in ids.enumerated() {
            // A newer connection issues the rest itself: a call made now could be sent on it, and its key never bound.
            guard state.withLock({ $0.isOpen && $0.generation == generation }) else {
                failed += ids.count - index
                break
            }
            guard let again = state.withLock({ $0.resubscription(of: id) }) else { continue }
            do throws(ParleyError) {
                let key = try await again.call()
                guard self.generation == generation else {
                    failed += 1
                    continue
                }
                // Before the new key is bound, so that the new notifications (held meanwhile) come after.
                await fillGap(of: id, backfill: again.backfill, last: again.last, marker: again.gap)
                var bound = false
                perform { state in
                    bound = state.generation == generation
                    return state.bind(id, key: key, generation: generation)
                }
                if bound { count += 1 } else { failed += 1 }
            } catch  where error.kind == .transport {
                // The new connection dropped too: the next one issues it again.
                failed += 1
            } catch {
                failed += 1
                removeSubscription(id)?.finish(throwing: error)
            }
        }
        return (count, failed)
    }

    /// Hands subscription `id` what its backfill hook fetched since its last notification, or a gap marker when it
    /// has no hook or the hook failed.
    private func fillGap(of id: Int, backfill: JSONRPCBackfill?, last: JSONRPCIncoming?, marker: JSONRPCIncoming) async {
        guard let backfill else { return yield(marker, to: id) }
        do throws(ParleyError) {
            for notification in try await backfill(last) { yield(notification, to: id) }
        } catch {
            yield(marker, to: id)
        }
    }

    private func yield(_ notification: JSONRPCIncoming, to id: Int) {
        let behind = state.withLock { state -> JSONRPCConnectionState.Notifications? in
            guard let continuation = state.yield(notification, to: id), give(notification, to: id, continuation, in: &state)
            else { return nil }
            return continuation
        }
        if let behind { fellBehind(behind) }
    }

    /// The key of subscription `id`, if it is bound.
    package func key(of id: Int) -> JSONValue? {
        state.withLock { $0.key(of: id) }
    }

    /// Removes subscription `id`; returns its continuation, to finish.
    @discardableResult
    private func removeSubscription(_ id: Int) -> JSONRPCConnectionState.Notifications? {
        remove(id).continuation
    }

    /// Removes subscription `id`; returns its last key.
    private func removeSubscriptionKey(_ id: Int) -> JSONValue? {
        remove(id).key
    }
}

/// A method whose result is read as JSON, whatever its declared type: a subscription's key.
private struct ResultAsJSON<Base: JSONRPCMethod>: JSONRPCMethod {
    typealias Result = JSONValue
    typealias Params = Base.Params
    static var name: String { Base.name }
    let base: Base
    var methodName: String { base.methodName }
    var params: Base.Params { base.params }
}
