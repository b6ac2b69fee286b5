package import Parley

/// The subscriptions of a ``JSONRPCConnection``: a watch (its key known beforehand, such as a progress token), a
/// subscription made by a subscribe call (its key the call's answer), issued again on every new connection, with a
/// gap marker or what its backfill hook fetched before the notifications of its new key.
package struct JSONRPCSubscriptions: Sendable {
    let connection: JSONRPCConnection

    /// Unsubscribes from the key a subscribe call answered (best effort).
    package typealias Unsubscribe = @Sendable (_ key: JSONValue) async -> Void

    /// The notifications `matcher` accepts for `key` (known beforehand, such as a progress token), until the
    /// subscription is cancelled.
    package func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription {
        let (stream, continuation) = makeStream()
        let id = try connection.apply { state throws(ParleyError) in
            try state.addSubscription(matcher, key: key, continuation: continuation)
        }
        continuation.onTermination = { [weak connection = self.connection] _ in
            _ = connection.map { Self(connection: $0).remove(id) }
        }
        connection.update { ($0.bind(id, key: key), ()) }
        return JSONRPCSubscription(
            stream: stream,
            key: { [weak connection = self.connection] in connection?.subscriptions.key(of: id) }
        ) {
            [weak connection = self.connection] in
            connection.map { Self(connection: $0).remove(id) }?.continuation?.finish()
        }
    }

    /// Subscribes with `subscribe` (the subscribe call, issued again on every new connection): the notifications
    /// `matcher` assigns to its key arrive on the returned sequence. When the consumer stops, `unsubscribe` is called
    /// with the key (in the connection's ``JSONRPCConnection/tasks``: the consumer does not wait);
    /// ``JSONRPCSubscription/cancel()`` waits for it.
    package func subscribe(
        _ subscribe: @escaping JSONRPCConnectionState.SubscribeCall,
        notifications matcher: JSONRPCSubscriptionMatcher,
        unsubscribe: @escaping Unsubscribe,
        backfill: JSONRPCBackfill?
    ) async throws(ParleyError) -> JSONRPCSubscription {
        let (stream, continuation) = makeStream()
        let id = try connection.apply { state throws(ParleyError) in
            try state.addSubscription(matcher, subscribeCall: subscribe, backfill: backfill, continuation: continuation)
        }
        continuation.onTermination = { [weak connection = self.connection] _ in
            // The consumer stopped iterating, or the subscription failed or closed.
            guard let connection, let key = Self(connection: connection).remove(id).key, connection.isOpen else { return }
            connection.tasks.run { await unsubscribe(key) }
        }
        do throws(ParleyError) {
            let key = try await subscribe()
            connection.update { ($0.bind(id, key: key), ()) }
        } catch {
            remove(id).continuation?.finish(throwing: error)
            throw error
        }
        return JSONRPCSubscription(
            stream: stream,
            key: { [weak connection = self.connection] in connection?.subscriptions.key(of: id) }
        ) {
            [weak connection = self.connection] in
            guard let connection else { return }
            let (continuation, key) = Self(connection: connection).remove(id)
            continuation?.finish()
            guard let key, connection.isOpen else { return }
            await unsubscribe(key)
        }
    }

    /// Issues the subscriptions `ids` again on a new connection (``JSONRPCConnection/opened(_:)`` named them): each
    /// gets a gap marker, or what its backfill hook fetched, before the notifications of its new key. Returns how many
    /// were subscribed again and how many failed.
    /// `generation` is the connection they are issued on: when another replaces it meanwhile, the answers are
    /// dropped (that connection's own resubscription binds its keys).
    package func resubscribe(_ ids: [Int], generation: Int) async -> (count: Int, failed: Int) {
        var count = 0
        var failed = 0
        for (index, id) in ids.enumerated() {
            // A newer connection issues the rest itself: a call made now could be sent on it, and its key never bound.
            guard connection.apply({ $0.isOpen && $0.generation == generation }) else {
                failed += ids.count - index
                break
            }
            guard let again = connection.apply({ $0.resubscription(of: id) }) else { continue }
            do throws(ParleyError) {
                let key = try await again.call()
                guard connection.generation == generation else {
                    failed += 1
                    continue
                }
                // Before the new key is bound, so that the new notifications (held meanwhile) come after.
                await fillGap(of: id, backfill: again.backfill, last: again.last, marker: again.gap)
                let bound = connection.update { state in
                    (state.bind(id, key: key, generation: generation), state.generation == generation)
                }
                if bound { count += 1 } else { failed += 1 }
            } catch  where error.kind == .transport {
                // The new connection dropped too: the next one issues it again.
                failed += 1
            } catch {
                failed += 1
                remove(id).continuation?.finish(throwing: error)
            }
        }
        return (count, failed)
    }

    /// The key of subscription `id`, if it is bound.
    package func key(of id: Int) -> JSONValue? {
        connection.apply { $0.key(of: id) }
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
        connection.update { state -> (JSONRPCConnectionState.Release, Void) in
            var release = JSONRPCConnectionState.Release()
            if let continuation = state.yield(notification, to: id) { release.routed.append((id, continuation, notification)) }
            return (release, ())
        }
    }

    /// Removes subscription `id`, handing on the held notifications that it released; returns its continuation (to
    /// finish) and last key.
    @discardableResult
    private func remove(_ id: Int) -> (continuation: JSONRPCConnectionState.Notifications?, key: JSONValue?) {
        connection.update { state -> (JSONRPCConnectionState.Release, (JSONRPCConnectionState.Notifications?, JSONValue?)) in
            let removed = state.removeSubscription(id)
            return (removed.release, (removed.continuation, removed.key))
        }
    }

    private func makeStream() -> (
        AsyncThrowingStream<JSONRPCIncoming, any Error>, JSONRPCConnectionState.Notifications
    ) {
        AsyncThrowingStream.makeStream(of: JSONRPCIncoming.self, bufferingPolicy: .bufferingNewest(connection.maxUnread))
    }
}
