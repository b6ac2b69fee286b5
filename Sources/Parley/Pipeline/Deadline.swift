/// Parley's one time-limit mechanism, structured: the operation runs as the child of a task group, its deadline
/// waits in the one ``DeadlineTimer``; whichever comes first decides: a passed deadline cancels the operation, which is
/// awaited, and an operation that ends takes its deadline back, so nothing outlives the call.
///
/// It backs every limit a client sets: the call's ``Client/Configuration/timeout``, the wait for each response head
/// (``Client/Configuration/responseHeadTimeout``), the wait for each chunk of a streamed body
/// (``Client/Configuration/streamIdleTimeout``, one watchdog per stream: ``watch(idle:check:)``) and the deadline of
/// a download.
package enum Deadline {
    /// What one child of ``run(watchedBy:expired:_:)``'s group reports.
    private enum Step<Value: Sendable>: Sendable {
        case finished(Value)
        case expired
        /// The timer was cancelled (the caller was): the operation's own outcome decides.
        case timerStopped
    }

    /// Runs `operation`; once `limit` has passed (counted from when `start` fires, if given, else from now), cancels
    /// it and throws `expired()`. Errors of the operation are rethrown as they are. Cancelling the caller cancels
    /// the operation, whose own error (or value) is then the outcome.
    ///
    /// The operation is awaited after it is cancelled: it must react to cancellation at once (Parley's transports
    /// do), so that the caller is released at its deadline and nothing is left running. An operation that waits
    /// for work shared with other callers (a batch, a coalesced request, a session being renewed) makes that wait
    /// end at once when cancelled, leaving the work to the others and cancelling it when nobody waits any more
    /// (`JSONRPCBatchingChannel` does): the shared work is not the caller's to wait for.
    ///
    /// It costs one child task (of a discarding group: the outcome is kept beside the race, not in a queue of
    /// results) and one entry of the ``DeadlineTimer``'s heap, not a second child sleeping on a timer; an operation
    /// that ends without suspending costs no timer entry at all.
    package static func run<Value: Sendable>(
        within limit: Duration,
        startingAt start: Signal? = nil,
        timer: DeadlineTimer = .shared,
        expired: () -> any Error,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let now = ContinuousClock.now
        let race = Race(operation, timer: timer)
        await withDiscardingTaskGroup { group in
            // Started on this thread, up to its first suspension: an operation that answers at once (a canned or
            // in-memory transport, a cached answer) ends before any thread is woken or any timer is set. The closure
            // is written where it is passed, capturing the race alone: no thunk or context is allocated for it.
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                group.addImmediateTask { await race.runOperation() }
            } else {
                group.addTask { await race.runOperation() }
            }
            if let start {
                start.onFire { race.arm(at: .now + limit) }
            } else {
                race.arm(at: now + limit)
            }
            // A caller cancelled cancels the child, whose end resumes this wait: its own outcome then decides.
            // Past the deadline, the child is cancelled, and the group awaits it before returning.
            if await race.firstEnd() == .expired { group.cancelAll() }
        }
        // The child has ended (the group awaited it): its outcome is kept, unless the deadline came first.
        guard let outcome = race.outcome else { throw expired() }
        return try outcome.get()
    }

    /// Which of an operation and its deadline came first (``run(within:startingAt:timer:expired:_:)``), and the
    /// operation's outcome when it did: one allocation, its state and lock together (``LockedState``).
    private struct Race<Value: Sendable>: Sendable {
        enum End: Sendable { case operation, expired }

        private struct State: Sendable {
            /// Taken when it runs: a caller's `withoutActuallyEscaping` closure is not kept past the call.
            var operation: (@Sendable () async throws -> Value)?
            let timer: DeadlineTimer
            var end: End?
            var outcome: Result<Value, any Error>?
            var token: DeadlineTimer.Token?
            var waiter: CheckedContinuation<End, Never>?
        }

        private let state: LockedState<State>

        init(_ operation: @escaping @Sendable () async throws -> Value, timer: DeadlineTimer) {
            state = LockedState(State(operation: operation, timer: timer))
        }

        /// The operation's outcome, when it ended before the deadline.
        var outcome: Result<Value, any Error>? {
            state.withLock { $0.end == .operation ? $0.outcome : nil }
        }

        /// Runs the operation and ends the race with its outcome.
        func runOperation() async {
            let operation = state.withLock { $0.operation.take() }
            let outcome: Result<Value, any Error>
            do {
                guard let operation else { throw CancellationError() }  // unreachable: the one child runs it once
                outcome = .success(try await operation())
            } catch {
                outcome = .failure(error)
            }
            end(.operation, outcome)
        }

        /// Starts the clock: the deadline is `deadline`, unless the operation has already ended.
        func arm(at deadline: ContinuousClock.Instant) {
            guard let timer = state.withLock({ $0.end == nil ? $0.timer : nil }) else { return }
            // Scheduled outside the lock (the timer has its own), then kept, or taken back if the race is over.
            let token = timer.schedule(at: deadline) { [self] in end(.expired, nil) }
            let over = state.withLock { state -> Bool in
                if state.end != nil { return true }
                state.token = token
                return false
            }
            if over { timer.cancel(token) }
        }

        private func end(_ end: End, _ outcome: Result<Value, any Error>?) {
            let ended = state.withLock { state -> (CheckedContinuation<End, Never>?, DeadlineTimer.Token?, DeadlineTimer)? in
                guard state.end == nil else { return nil }
                state.end = end
                state.outcome = outcome
                defer {
                    state.waiter = nil
                    state.token = nil
                }
                return (state.waiter, end == .operation ? state.token : nil, state.timer)
            }
            guard let (waiter, token, timer) = ended else { return }
            if let token { timer.cancel(token) }
            waiter?.resume(returning: end)
        }

        /// Returns what ended first, once something has.
        func firstEnd() async -> End {
            // Ended already (an operation started at once that did not suspend): no continuation to make.
            if let end = state.withLock({ $0.end }) { return end }
            return await withCheckedContinuation { continuation in
                let ended = state.withLock { state -> End? in
                    if let end = state.end { return end }
                    state.waiter = continuation
                    return nil
                }
                if let ended { continuation.resume(returning: ended) }
            }
        }
    }

    /// Runs `operation` beside `watchdog`, the two as the children of a task group: once `watchdog` returns `true`,
    /// cancels the operation and throws `expired()`. A watchdog that returns `false` (it was cancelled: the caller
    /// was) leaves the outcome to the operation. ``run(within:startingAt:expired:_:)`` is this with a timer;
    /// ``watch(idle:check:)`` is the watchdog of a series of waits.
    package static func run<Value: Sendable>(
        watchedBy watchdog: @escaping @Sendable () async -> Bool,
        expired: @escaping @Sendable () -> any Error,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Step<Value>.self) { group in
            group.addTask { .finished(try await operation()) }
            group.addTask { await watchdog() ? .expired : .timerStopped }
            defer { group.cancelAll() }
            while let step = try await group.next() {
                switch step {
                case .finished(let value): return value
                case .expired: throw expired()
                case .timerStopped: continue
                }
            }
            // Unreachable: the operation's child always reports (a value or an error) before the group is empty.
            throw expired()
        }
    }

    /// The watchdog of a series of waits that each may last at most `idle` (the chunks of a streamed body): one
    /// sleeping loop per series, not a timer per wait. It wakes at the deadline of the current wait, or `idle` from
    /// now when none is under way, and asks `check(now)` when to look again: `check` returns the next deadline, or
    /// `nil` once a wait has passed its limit (and has done what expiry does, under the caller's lock). Returns
    /// `true` then, `false` when cancelled. Use it as the watchdog of ``run(watchedBy:expired:_:)``.
    package static func watch(
        idle: Duration,
        check: @escaping @Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?
    ) async -> Bool {
        var wake = ContinuousClock.now + idle
        while true {
            guard (try? await Task.sleep(until: wake, clock: .continuous)) != nil else { return false }
            guard let next = check(.now) else { return true }
            wake = next
        }
    }

    /// The deadline of a series of waits, each limited to `idle`, for ``watch(idle:check:)``: the next time to look,
    /// or `nil` when the wait that began at `since` (if one is under way) has lasted `idle` at `now`.
    package static func nextLook(
        since: ContinuousClock.Instant?,
        idle: Duration,
        now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant? {
        guard let since else { return now + idle }
        return now - since >= idle ? nil : since + idle
    }

    /// A one-shot event a deadline's timer can wait for (``run(within:startingAt:expired:_:)``): "the request has
    /// been sent". Waiting ends when it fires or when the waiting task is cancelled.
    package final class Signal: Sendable {
        private struct State {
            var fired = false
            var nextID = 0
            var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
            var actions: [@Sendable () -> Void] = []
        }

        private let state = LockedState(State())

        package init() {}

        /// Fires the signal (once; later calls do nothing).
        package func fire() {
            let (waiters, actions) = state.withLock { state in
                state.fired = true
                defer {
                    state.waiters = [:]
                    state.actions = []
                }
                return (state.waiters.values, state.actions)
            }
            for action in actions { action() }
            for waiter in waiters { waiter.resume() }
        }

        /// Runs `action` when the signal fires, at once if it has (short work that does not block: it runs in
        /// ``fire()``'s caller).
        package func onFire(_ action: @escaping @Sendable () -> Void) {
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.actions.append(action)
                return false
            }
            if now { action() }
        }

        /// Returns once the signal has fired, or the task is cancelled.
        package func wait() async {
            let id = state.withLock { state in
                defer { state.nextID += 1 }
                return state.nextID
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state in
                        // A cancellation before this point set the task's flag before its handler ran.
                        if state.fired || Task.isCancelled { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }
}
