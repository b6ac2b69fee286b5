import Parley

/// The cancellation notifications a ``JSONRPCClient`` is sending, each as work of its own loop (the cancelled
/// caller's task cannot carry them), so that ``JSONRPCClient/waitForCancellationNotices()`` can wait for them.
final class CancellationNotices: Sendable {
    private let sending = LockedState([TaskLoop.Handle]())
    private let tasks = TaskLoop()

    /// Runs `send` in the loop, kept until it ends.
    func add(_ send: @escaping @Sendable () async -> Void) {
        let handle = tasks.run(send)
        sending.withLock { sending in
            sending.removeAll { $0.isDone }
            sending.append(handle)
        }
    }

    /// Waits for the notifications under way now.
    func waitForAll() async {
        for handle in sending.withLock({ $0 }) { await handle.wait() }
    }
}
