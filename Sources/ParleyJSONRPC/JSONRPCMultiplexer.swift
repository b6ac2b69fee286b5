package import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What a connection-oriented channel (byte streams, WebSocket) shares: pending calls routed by id, the
/// peer's requests answered by a router, its notifications delivered as a stream, and failing every pending
/// call at once when the connection ends.
package final class JSONRPCMultiplexer: Sendable {
    /// A call waiting for its answer: registered before its message is written, so an answer that arrives
    /// before the caller suspends is kept, not lost.
    private enum Waiter {
        case waiting(CheckedContinuation<JSONRPCReply, any Error>?)
        case answered(Result<JSONRPCReply, ParleyError>)
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var waiterByID: [JSONRPCID: Int] = [:]
        var idsOfWaiter: [Int: [JSONRPCID]] = [:]
        var nextWaiter = 0
        var closedReason: String?
        var subscriptions: [Int: Subscription] = [:]
        var nextSubscription = 0
        /// Notifications that may belong to a subscription whose subscribe call has not been answered yet.
        var held: [JSONRPCIncoming] = []
    }

    /// A subscription: its notifications go to `continuation`; `key` is the subscribe call's result, `nil`
    /// while that call (or its repetition after a reconnect) is in flight.
    private struct Subscription {
        let matcher: JSONRPCSubscriptionMatcher
        var key: JSONValue?
        /// A watch whose key was known beforehand (a progress token): not subscribed again after a reconnect.
        var isWatch = false
        /// The last notification handed to it: a backfill's cursor.
        var last: JSONRPCIncoming?
        let continuation: AsyncThrowingStream<JSONRPCIncoming, any Error>.Continuation
    }

    package typealias Writer = @Sendable (Data) async throws(ParleyError) -> Void

    private let state = LockedState(State())
    private let router: JSONRPCRouter?
    /// The peer's requests being handled, for its cancellations.
    private let requests = JSONRPCRequestTasks()
    private let incomingContinuation: AsyncStream<JSONRPCIncoming>.Continuation
    package let incoming: AsyncStream<JSONRPCIncoming>

    package init(router: JSONRPCRouter?) {
        self.router = router
        (incoming, incomingContinuation) = AsyncStream.makeStream(of: JSONRPCIncoming.self)
    }

    package var isClosed: Bool { state.withLock { $0.closedReason != nil } }

    /// Writes `message` with `write`; waits for the answer to `ids` when there are any.
    package func exchange(_ message: Data, ids: [JSONRPCID], write: Writer) async throws(ParleyError) -> JSONRPCReply? {
        guard !ids.isEmpty else {
            if let reason = state.withLock({ $0.closedReason }) {
                throw ParleyError(.transport, "The JSON-RPC channel is closed: \(reason).")
            }
            try await write(message)
            return nil
        }
        let waiter = try state.withLock { state throws(ParleyError) -> Int in
            if let reason = state.closedReason {
                throw ParleyError(.transport, "The JSON-RPC channel is closed: \(reason).")
            }
            if let busy = ids.first(where: { state.waiterByID[$0] != nil }) {
                throw ParleyError(
                    .invalidRequest,
                    "A JSON-RPC call with the id \(busy) is already waiting for its answer on this channel, so the answer "
                        + "could not be told apart. Use one id generator per channel (clients sharing a channel should share it)."
                )
            }
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = .waiting(nil)
            for id in ids { state.waiterByID[id] = state.nextWaiter }
            state.idsOfWaiter[state.nextWaiter] = ids
            return state.nextWaiter
        }
        do {
            try await write(message)
        } catch {
            _ = remove(waiter, ids: ids)
            throw error
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONRPCReply, any Error>) in
                    let ready = state.withLock { state -> Result<JSONRPCReply, ParleyError>? in
                        switch state.waiters[waiter] {
                        case .answered(let result)?:
                            state.waiters[waiter] = nil
                            return result
                        case .waiting?:
                            state.waiters[waiter] = .waiting(continuation)
                            return nil
                        case nil:
                            return .failure(ParleyError(.cancelled, "The JSON-RPC call was cancelled."))
                        }
                    }
                    if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
                }
            } onCancel: {
                if case .waiting(let continuation?)? = remove(waiter, ids: ids) {
                    continuation.resume(throwing: ParleyError(.cancelled, "The JSON-RPC call was cancelled."))
                }
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The JSON-RPC channel failed: \(error)")
        }
    }

    /// Fails every pending call with `reason` and ends ``incoming`` and every subscription; later calls fail
    /// at once.
    package func close(reason: String) {
        let (subscriptions, held) = state.withLock { state in
            if state.closedReason == nil { state.closedReason = reason }
            defer {
                state.subscriptions = [:]
                state.held = []
            }
            return (state.subscriptions.values.map(\.continuation), state.held)
        }
        failPending(reason: reason)
        for notification in held { incomingContinuation.yield(notification) }
        let failure = ParleyError(.transport, "The JSON-RPC channel closed: \(reason).")
        for continuation in subscriptions { continuation.finish(throwing: failure) }
        incomingContinuation.finish()
    }

    /// Fails every pending call with `reason` (the connection they were sent on ended) and leaves the
    /// multiplexer open for calls on a new connection.
    package func failPending(reason: String) {
        let failure = ParleyError(.transport, "The JSON-RPC connection closed while a call waited for its answer: \(reason).")
        let pending = state.withLock { state -> [CheckedContinuation<JSONRPCReply, any Error>] in
            var continuations: [CheckedContinuation<JSONRPCReply, any Error>] = []
            for (key, waiter) in state.waiters {
                switch waiter {
                case .waiting(let continuation?):
                    continuations.append(continuation)
                    state.waiters[key] = nil
                case .waiting(nil):
                    state.waiters[key] = .answered(.failure(failure))
                case .answered:
                    break
                }
            }
            state.waiterByID = [:]
            state.idsOfWaiter = [:]
            return continuations
        }
        for continuation in pending { continuation.resume(throwing: failure) }
    }

    private func remove(_ waiter: Int, ids: [JSONRPCID]) -> Waiter? {
        state.withLock { state in
            for id in ids where state.waiterByID[id] == waiter { state.waiterByID[id] = nil }
            state.idsOfWaiter[waiter] = nil
            return state.waiters.removeValue(forKey: waiter)
        }
    }

    /// Routes one message from the peer: an answer to its waiter, a request to the router (its answer written
    /// with `write`), a notification to its subscription or ``incoming``.
    ///
    /// Only `method` and `id` are read here: the caller parses an answer once, with its typed decoders.
    package func dispatch(_ message: Data, write: @escaping Writer) {
        guard let shape = try? JSONDecoder().decode(Shape.self, from: message) else {
            // Not JSON: answer as the specification says; nobody waits on it.
            Task { try? await write(JSONRPCRouter.errorResponse(.parseError(), id: .null)) }
            return
        }
        let elements: [Peek] =
            switch shape {
            case .single(let peek): [peek]
            case .batch(let peeks): peeks
            }
        if let first = elements.first, !first.hasMethod {
            deliver(JSONRPCReply(data: message), ids: elements.compactMap(\.id))
            return
        }
        if case .single(let peek) = shape, peek.isNotification,
            case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: message),
            case .string(let method)? = members["method"]
        {
            requests.cancel(method: method, params: members["params"], using: (router ?? JSONRPCRouter()).cancellations)
            notify(JSONRPCIncoming(method: method, params: members["params"], id: nil))
            return
        }
        let router = self.router ?? JSONRPCRouter()
        guard let handling = router.intake(message, tasks: requests) else { return }
        Task {
            if let answer = await handling() { try? await write(answer) }
        }
    }

    /// What routing needs of one message: whether it has a method (a request or notification) and its id.
    private struct Peek: Decodable {
        var hasMethod = false
        var methodIsString = false
        var hasID = false
        var id: JSONRPCID?

        var isNotification: Bool { hasMethod && methodIsString && !hasID }

        init(from decoder: any Decoder) throws {
            // Elements that are not objects are answers nobody can match: routed like answers.
            guard let container = try? decoder.container(keyedBy: MemberKey.self) else { return }
            hasMethod = container.contains(.method)
            methodIsString = (try? container.decode(String.self, forKey: .method)) != nil
            hasID = container.contains(.id)
            if let number = try? container.decode(Int.self, forKey: .id) {
                id = .number(number)
            } else if let string = try? container.decode(String.self, forKey: .id) {
                id = .string(string)
            }
        }
    }

    private enum Shape: Decodable {
        case single(Peek)
        case batch([Peek])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let batch = try? container.decode([Peek].self) {
                self = .batch(batch)
            } else {
                self = .single(try container.decode(Peek.self))
            }
        }
    }

    private func deliver(_ reply: JSONRPCReply, ids: [JSONRPCID]) {
        let continuation = state.withLock { state -> CheckedContinuation<JSONRPCReply, any Error>? in
            for id in ids {
                guard let waiter = state.waiterByID[id] else { continue }
                for other in state.idsOfWaiter.removeValue(forKey: waiter) ?? [] where state.waiterByID[other] == waiter {
                    state.waiterByID[other] = nil
                }
                switch state.waiters[waiter] {
                case .waiting(let continuation?)?:
                    state.waiters[waiter] = nil
                    return continuation
                case .waiting(nil)?:
                    state.waiters[waiter] = .answered(.success(reply))
                    return nil
                default:
                    return nil
                }
            }
            return nil
        }
        continuation?.resume(returning: reply)
    }

    // MARK: Subscriptions

    /// Registers a subscription before its subscribe call is sent, so notifications that overtake the call's
    /// answer are held for it. `onEnd` runs once the subscription ended, with its id and last key.
    package func addSubscription(
        _ matcher: JSONRPCSubscriptionMatcher,
        onEnd: @escaping @Sendable (_ id: Int, _ key: JSONValue?) -> Void
    ) throws(ParleyError) -> (id: Int, stream: AsyncThrowingStream<JSONRPCIncoming, any Error>) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: JSONRPCIncoming.self)
        let id = try state.withLock { state throws(ParleyError) -> Int in
            if let reason = state.closedReason {
                throw ParleyError(.transport, "The JSON-RPC channel is closed: \(reason).")
            }
            state.nextSubscription += 1
            state.subscriptions[state.nextSubscription] = Subscription(matcher: matcher, key: nil, continuation: continuation)
            return state.nextSubscription
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let key = self.state.withLock { $0.subscriptions.removeValue(forKey: id)?.key }
            self.releaseHeld()
            onEnd(id, key)
        }
        return (id, stream)
    }

    /// The notifications `matcher` accepts for `key` (known beforehand, such as a progress token), until the
    /// subscription is cancelled.
    package func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription {
        let (id, stream) = try addSubscription(matcher) { _, _ in }
        state.withLock { $0.subscriptions[id]?.isWatch = true }
        bindSubscription(id, key: key)
        return JSONRPCSubscription(stream: stream, key: { [weak self] in self?.key(of: id) }) { [weak self] in
            _ = self?.removeSubscription(id)
        }
    }

    /// Marks every subscription as being subscribed again (after a reconnect); returns their ids.
    package func unbindSubscriptions() -> [Int] {
        state.withLock { state in
            let resubscribed = state.subscriptions.filter { !$0.value.isWatch }.keys.sorted()
            for id in resubscribed { state.subscriptions[id]?.key = nil }
            return resubscribed
        }
    }

    /// The subscribe call of subscription `id` answered `key`: its notifications (held ones first) go to it.
    package func bindSubscription(_ id: Int, key: JSONValue) {
        state.withLock { $0.subscriptions[id]?.key = key }
        releaseHeld()
    }

    /// The key of subscription `id`, if it is bound.
    package func key(of id: Int) -> JSONValue? {
        state.withLock { $0.subscriptions[id]?.key }
    }

    /// The gap marker of subscription `id` (its matcher's method).
    package func gapMarker(for id: Int) -> JSONRPCIncoming {
        .gap(state.withLock { $0.subscriptions[id]?.matcher.method } ?? "")
    }

    /// The last notification subscription `id` was handed.
    package func lastNotification(of id: Int) -> JSONRPCIncoming? {
        state.withLock { $0.subscriptions[id]?.last }
    }

    /// Hands `notification` (a gap marker, or a backfilled one) to subscription `id`, before its new key is bound.
    package func yield(_ notification: JSONRPCIncoming, to id: Int) {
        let continuation = state.withLock { state -> AsyncThrowingStream<JSONRPCIncoming, any Error>.Continuation? in
            if !notification.isGap { state.subscriptions[id]?.last = notification }
            return state.subscriptions[id]?.continuation
        }
        continuation?.yield(notification)
    }

    /// Ends subscription `id` (its consumer cancelled it) without calling its `onEnd`; returns its last key.
    package func removeSubscription(_ id: Int) -> JSONValue? {
        let removed = state.withLock { $0.subscriptions.removeValue(forKey: id) }
        removed?.continuation.finish()
        releaseHeld()
        return removed?.key
    }

    /// Ends subscription `id` with `error` (its subscribe call failed).
    package func failSubscription(_ id: Int, with error: ParleyError) {
        let continuation = state.withLock { $0.subscriptions.removeValue(forKey: id)?.continuation }
        continuation?.finish(throwing: error)
        releaseHeld()
    }

    /// A notification: to the subscription it belongs to, held while a subscription of its method awaits its
    /// key, or to ``incoming``.
    private func notify(_ notification: JSONRPCIncoming) {
        enum Route {
            case subscription(AsyncThrowingStream<JSONRPCIncoming, any Error>.Continuation)
            case held
            case incoming
        }
        let route = state.withLock { state -> Route in
            guard !state.subscriptions.isEmpty else { return .incoming }
            if let (id, subscription) = Self.owner(of: notification, in: state) {
                state.subscriptions[id]?.last = notification
                return .subscription(subscription.continuation)
            }
            if Self.mayBelongToPending(notification, in: state) {
                state.held.append(notification)
                return .held
            }
            return .incoming
        }
        switch route {
        case .subscription(let continuation): continuation.yield(notification)
        case .held: break
        case .incoming: incomingContinuation.yield(notification)
        }
    }

    /// Delivers held notifications whose subscription is now known; keeps those that may still belong to a
    /// pending one; sends the rest to ``incoming``.
    private func releaseHeld() {
        let (routed, unowned) = state.withLock { state in
            var routed: [(AsyncThrowingStream<JSONRPCIncoming, any Error>.Continuation, JSONRPCIncoming)] = []
            var unowned: [JSONRPCIncoming] = []
            var kept: [JSONRPCIncoming] = []
            for notification in state.held {
                if let (id, subscription) = Self.owner(of: notification, in: state) {
                    state.subscriptions[id]?.last = notification
                    routed.append((subscription.continuation, notification))
                } else if Self.mayBelongToPending(notification, in: state) {
                    kept.append(notification)
                } else {
                    unowned.append(notification)
                }
            }
            state.held = kept
            return (routed, unowned)
        }
        for (continuation, notification) in routed { continuation.yield(notification) }
        for notification in unowned { incomingContinuation.yield(notification) }
    }

    private static func owner(of notification: JSONRPCIncoming, in state: State) -> (Int, Subscription)? {
        state.subscriptions.first { _, subscription in
            subscription.key.map { subscription.matcher.matches(notification, subscription: $0) } ?? false
        }.map { ($0.key, $0.value) }
    }

    private static func mayBelongToPending(_ notification: JSONRPCIncoming, in state: State) -> Bool {
        state.subscriptions.values.contains { $0.key == nil && $0.matcher.method == notification.method }
    }
}
