import NIOCore

/// Runs a task's jobs on one NIO event loop (`withTaskExecutorPreference`): a continuation the loop resumes then
/// runs at once on that loop instead of waking a thread of the cooperative pool. For the `probe-…-on-loop` sides.
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
