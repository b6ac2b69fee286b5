import Parley

/// The cancellation notifications a ``JSONRPCClient`` is sending, each in a task of its own (the cancelled caller's
/// task cannot carry them), so that ``JSONRPCClient/waitForCancellationNotices()`` can wait for them.
final class CancellationNotices: Sendable {
    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        var next = 0
    }

    private let state = LockedState(State())

    /// Runs `send` in a new task, kept until it ends.
    func add(_ send: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            state.next += 1
            let key = state.next
            state.tasks[key] = Task { [weak self] in
                await send()
                _ = self?.state.withLock { $0.tasks.removeValue(forKey: key) }
            }
        }
    }

    /// Waits for the notifications under way now.
    func waitForAll() async {
        for task in state.withLock({ Array($0.tasks.values) }) { await task.value }
    }
}
