/// The timers of ``Deadline/run(within:startingAt:expired:_:)``, in one place: one min-heap of deadlines for the whole
/// process, slept on by one piece of work of a ``TaskLoop``, instead of a sleeping child task per limited call.
///
/// A timer is cancelled far more often than it fires (a response head comes long before its 60 s), so cancelling one
/// removes it from the heap at once (O(log n)): a cancelled sleep of Swift's own would stay queued until its deadline,
/// one per call, and a busy client would hold hundreds of thousands of them.
package final class DeadlineTimer: Sendable {
    /// The process's timer.
    package static let shared = DeadlineTimer()

    /// A scheduled action: ``cancel(_:)`` takes it back.
    package struct Token: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    fileprivate struct Entry {
        let deadline: ContinuousClock.Instant
        let id: UInt64
        let action: @Sendable () -> Void
    }

    fileprivate struct State {
        /// A binary min-heap by deadline.
        var heap: [Entry] = []
        /// Where each scheduled id is in ``heap``.
        var positions: [UInt64: Int] = [:]
        var nextID: UInt64 = 0
        /// What the sleeper sleeps until (`nil`: it is not sleeping on a deadline: it waits for one, or is not running).
        var sleepingUntil: ContinuousClock.Instant?
        /// Wakes the sleeper early: for a deadline earlier than the one it sleeps until, or the first one.
        var wake: Deadline.Signal?
        var running = false
    }

    private let state = LockedState(State())
    private let loop = TaskLoop()

    init() {}

    /// Runs `action` once `deadline` has passed, unless cancelled first. `action` runs on the timer's task: it must be
    /// short and must not block (resuming a continuation, firing a signal).
    package func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Token {
        let (token, wake, start) = state.withLock { state -> (Token, Deadline.Signal?, Bool) in
            let id = state.nextID
            state.nextID &+= 1
            state.push(Entry(deadline: deadline, id: id, action: action))
            let start = !state.running
            state.running = true
            // The sleeper sleeps past this deadline (or waits for a first one): wake it to sleep again, shorter.
            var wake: Deadline.Signal?
            if !start, state.sleepingUntil.map({ deadline < $0 }) ?? true {
                wake = state.wake
                state.wake = nil
            }
            return (Token(id: id), wake, start)
        }
        wake?.fire()
        if start { loop.run { [self] in await sleep() } }
        return token
    }

    /// Takes back the action of `token`, if it has not run yet.
    package func cancel(_ token: Token) {
        state.withLock { state in
            guard let position = state.positions[token.id] else { return }
            state.remove(at: position)
        }
    }

    /// How many actions are waiting for their deadline.
    var scheduledCount: Int { state.withLock { $0.heap.count } }

    /// The sleeper: runs the actions whose deadline has passed, then sleeps until the next deadline, or until woken
    /// for an earlier one. It runs as long as the process does, one piece of work of the timer's loop; with nothing
    /// scheduled it waits without a timer.
    private func sleep() async {
        while !Task.isCancelled {
            let now = ContinuousClock.now
            var due: [@Sendable () -> Void] = []
            let wake = Deadline.Signal()
            let until = state.withLock { state -> ContinuousClock.Instant? in
                while let first = state.heap.first, first.deadline <= now {
                    due.append(first.action)
                    state.remove(at: 0)
                }
                state.sleepingUntil = state.heap.first?.deadline
                state.wake = wake
                return state.sleepingUntil
            }
            for action in due { action() }
            guard let until else {
                await wake.wait()
                continue
            }
            // Until the deadline, or until woken for an earlier one: the two as children of a group, the first to end
            // decides. A wake is rare (a limit shorter than every one scheduled), so is this group.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(until: until, clock: .continuous) }
                group.addTask { await wake.wait() }
                _ = await group.next()
                group.cancelAll()
            }
        }
    }
}

extension DeadlineTimer.State {
    fileprivate mutating func push(_ entry: DeadlineTimer.Entry) {
        heap.append(entry)
        positions[entry.id] = heap.count - 1
        siftUp(heap.count - 1)
    }

    fileprivate mutating func remove(at position: Int) {
        let removed = heap[position]
        positions[removed.id] = nil
        let last = heap.removeLast()
        guard position < heap.count else { return }
        heap[position] = last
        positions[last.id] = position
        if position > 0, heap[position].deadline < heap[(position - 1) / 2].deadline {
            siftUp(position)
        } else {
            siftDown(position)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let smaller = right < heap.count && heap[right].deadline < heap[left].deadline ? right : left
            guard heap[smaller].deadline < heap[parent].deadline else { return }
            swapAt(parent, smaller)
            parent = smaller
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        positions[heap[a].id] = a
        positions[heap[b].id] = b
    }
}
