/// Work that outlives the call that starts it (a connection's reading loop, an unsubscribe call, a batch shared by
/// its callers, a cancellation notice, a cache's revalidation or store, an access token's refresh), run as the
/// children of one task group that one long-lived task owns: Parley's one owner of long-lived background work, the
/// structured alternative to an unstructured task per piece of work.
///
/// Each piece of work gets a ``Handle``, which cancels it alone and tells when it ended. The loop starts with its
/// first piece of work; it ends when its owner (a connection, a channel, a client) lets go of it, once the work under
/// way has ended.
package final class TaskLoop: Sendable {
    /// One piece of work in the loop: cancel it, or wait for it to end.
    package final class Handle: Sendable {
        private let stop = Deadline.Signal()
        private let done = Deadline.Signal()
        private let ended = LockedState(false)

        init() {}

        /// Cancels the work (one not started yet starts cancelled).
        package func cancel() { stop.fire() }

        /// Returns once the work has ended, or the waiting task is cancelled.
        package func wait() async { await done.wait() }

        /// Whether the work has ended.
        package var isDone: Bool { ended.withLock { $0 } }

        /// Runs `work` until it ends or is cancelled (a child of the loop's group, with a child of its own that
        /// waits for ``cancel()``).
        fileprivate func run(_ work: @escaping @Sendable () async -> Void) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await work() }
                group.addTask { [stop] in await stop.wait() }
                _ = await group.next()
                group.cancelAll()
            }
            finish()
        }

        fileprivate func finish() {
            ended.withLock { $0 = true }
            done.fire()
        }
    }

    private struct Job: Sendable {
        let handle: Handle
        let work: @Sendable () async -> Void
    }

    private let started = LockedState(false)
    private let jobs: AsyncStream<Job>.Continuation
    private let stream: AsyncStream<Job>

    package init() {
        (stream, jobs) = AsyncStream.makeStream()
    }

    deinit {
        // The loop ends once the work under way has ended.
        jobs.finish()
    }

    /// Runs `work` in the loop's task group; its handle cancels it, or waits for it.
    @discardableResult
    package func run(_ work: @escaping @Sendable () async -> Void) -> Handle {
        let handle = Handle()
        started.withLock { started in
            if !started {
                started = true
                let stream = self.stream
                // Unstructured: the one owner of work that outlives its calls (its group's children); ends with the loop.
                Task { await Self.drain(stream) }
            }
            // Under the lock: no work can be queued after the loop's end.
            if case .terminated = jobs.yield(Job(handle: handle, work: work)) { handle.finish() }
        }
        return handle
    }

    private static func drain(_ stream: AsyncStream<Job>) async {
        await withDiscardingTaskGroup { group in
            for await job in stream {
                group.addTask { await job.handle.run(job.work) }
            }
        }
    }
}
