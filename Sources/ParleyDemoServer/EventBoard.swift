import NIOConcurrencyHelpers
import NIOCore

/// A per-server registry of fired events with waiters that suspend (without polling) until one
/// of the events they care about fires, a timeout elapses, or their task is cancelled.
final class EventBoard: Sendable {
    private struct Waiter {
        let events: Set<DemoEvent>
        let continuation: AsyncStream<Void>.Continuation
    }

    private struct State {
        var fired: Set<DemoEvent> = []
        var waiters: [Int: Waiter] = [:]
        var nextToken = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Returns a process-unique token, e.g. to name an `.inboundClosed` event.
    func makeToken() -> Int {
        self.state.withLockedValue { state in
            defer { state.nextToken += 1 }
            return state.nextToken
        }
    }

    /// Records `event` and wakes everybody waiting for it.
    func fire(_ event: DemoEvent) {
        let toWake = self.state.withLockedValue { state -> [AsyncStream<Void>.Continuation] in
            guard state.fired.insert(event).inserted else { return [] }
            let tokens = state.waiters.filter { $0.value.events.contains(event) }.map(\.key)
            return tokens.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in toWake {
            continuation.finish()
        }
    }

    /// Whether `event` has fired (and was not forgotten since).
    func hasFired(_ event: DemoEvent) -> Bool {
        self.state.withLockedValue { $0.fired.contains(event) }
    }

    /// Drops a fired event, so that short-lived events don't accumulate.
    func forget(_ event: DemoEvent) {
        _ = self.state.withLockedValue { $0.fired.remove(event) }
    }

    /// Runs `operation`, closing `channel` if the server starts stopping meanwhile, so that an
    /// operation suspended on a write (e.g. to a slow reader) fails promptly instead of delaying
    /// the shutdown.
    func closingOnStop<Value: Sendable>(
        _ channel: any Channel,
        _ operation: () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                if await self.wait(forAnyOf: [.stopping], timeout: nil) {
                    try? await channel.close()
                }
            }
            defer { group.cancelAll() }
            return try await operation()
        }
    }

    /// Suspends until any of `events` has fired, `timeout` elapsed, or the task is cancelled.
    /// - Returns: whether one of `events` has fired.
    @discardableResult
    func wait(forAnyOf events: Set<DemoEvent>, timeout: Duration?) async -> Bool {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let token = self.state.withLockedValue { state -> Int? in
            guard state.fired.isDisjoint(with: events) else { return nil }
            let token = state.nextToken
            state.nextToken += 1
            state.waiters[token] = Waiter(events: events, continuation: continuation)
            return token
        }
        guard let token else { return true }
        defer {
            _ = self.state.withLockedValue { $0.waiters.removeValue(forKey: token) }
        }
        if let timeout {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    continuation.finish()
                }
                // Ends when the stream is finished (event fired or timeout) or the task is cancelled.
                for await _ in stream {}
                group.cancelAll()
            }
        } else {
            for await _ in stream {}
        }
        return self.state.withLockedValue { !$0.fired.isDisjoint(with: events) }
    }
}
