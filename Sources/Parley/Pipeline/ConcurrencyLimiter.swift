import OpenAPIRuntime

/// Lets at most `limit` calls run at once; the others wait in order for a slot, and can be cancelled while
/// they wait. Backs ``Client/Configuration/maxConcurrentRequests``.
package final class ConcurrencyLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var waiters: [Waiter] = []
        var head = 0
        var nextID: UInt64 = 0
        /// Waiters whose task was cancelled before they were queued.
        var cancelledEarly: Set<UInt64> = []
        /// Tests waiting until this many calls wait (``waitUntilQueued(_:)``).
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        var queued: Int { waiters.count - head }

        /// The watchers whose count has been reached, removed.
        mutating func reachedWatchers() -> [CheckedContinuation<Void, Never>] {
            guard !watchers.isEmpty else { return [] }
            let queued = self.queued
            let reached = watchers.filter { $0.count <= queued }.map(\.continuation)
            watchers.removeAll { $0.count <= queued }
            return reached
        }
    }

    let limit: Int
    private let state: LockedState<State>

    init(limit: Int) {
        self.limit = max(1, limit)
        self.state = LockedState(State(available: max(1, limit)))
    }

    /// A slot, released by ``Permit/release()`` or when the permit is dropped.
    final class Permit: Sendable {
        private let limiter: ConcurrencyLimiter
        private let released = LockedState(false)

        fileprivate init(_ limiter: ConcurrencyLimiter) { self.limiter = limiter }

        /// Gives the slot back (once; later calls do nothing).
        func release() {
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            if first { limiter.handBack() }
        }

        deinit { release() }
    }

    /// Waits for a slot. Fails with ``ParleyError/Kind/cancelled`` if the task is cancelled while waiting.
    func acquire() async throws(ParleyError) -> Permit {
        let id: UInt64? = state.withLock { state in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { return Permit(self) }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let (cancelled, watchers) = state.withLock { state in
                        if state.cancelledEarly.remove(id) != nil { return (true, [CheckedContinuation<Void, Never>]()) }
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return (false, state.reachedWatchers())
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                    for watcher in watchers { watcher.resume() }
                }
            } onCancel: {
                let waiter: Waiter? = state.withLock { state in
                    if let index = state.waiters[state.head...].firstIndex(where: { $0.id == id }) {
                        return state.waiters.remove(at: index)
                    }
                    state.cancelledEarly.insert(id)
                    return nil
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        } catch {
            throw ParleyError(
                .cancelled,
                "The call was cancelled while it waited for one of the client's \(limit) concurrent request slots."
            )
        }
        return Permit(self)
    }

    /// Returns once at least `count` calls wait for a slot (for tests: what a waiting call has done so far).
    package func waitUntilQueued(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.queued >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Passes a returned slot to the first waiter, or makes it available.
    private func handBack() {
        let next: Waiter? = state.withLock { state in
            guard state.head < state.waiters.count else {
                state.available += 1
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            if state.head > 64, state.head * 2 > state.waiters.count {
                state.waiters.removeFirst(state.head)
                state.head = 0
            }
            return waiter
        }
        next?.continuation.resume()
    }

    /// `body` with `permit` released when it has been read to its end, fails, or is dropped; `permit` is
    /// released at once when there is no body.
    static func holding(_ permit: Permit, until body: HTTPBody?) -> HTTPBody? {
        guard let body else {
            permit.release()
            return nil
        }
        return body.watched(by: PermitHolding(permit: permit))
    }
}

/// Keeps a permit until the body is read to its end or fails (a ``BodyWatcher``); dropping the body releases it too
/// (``ConcurrencyLimiter/Permit`` releases itself when it goes away).
private struct PermitHolding: BodyWatcher {
    let permit: ConcurrencyLimiter.Permit

    func didFinish(_ reading: inout Void) { permit.release() }

    func didFail(_ error: any Error, _ reading: inout Void) { permit.release() }
}
