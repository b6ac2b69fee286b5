import NIOCore

/// A `TaskExecutor` that runs a task's jobs on one NIO event loop: a continuation the loop resumes then runs at once
/// on that loop instead of waking a thread of the cooperative pool. For Parley's own bounded stages only (the
/// Architecture article's rule): ``AsyncHTTPClientTransport`` reads a whole response on one.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// One ``EventLoopTaskExecutor`` per loop of a group, made once: ``next()`` hands them out in the group's own order.
final class EventLoopTaskExecutors: Sendable {
    private let group: any EventLoopGroup
    private let executors: [ObjectIdentifier: EventLoopTaskExecutor]

    init(_ group: any EventLoopGroup) {
        self.group = group
        var executors: [ObjectIdentifier: EventLoopTaskExecutor] = [:]
        for loop in group.makeIterator() { executors[ObjectIdentifier(loop)] = EventLoopTaskExecutor(loop) }
        self.executors = executors
    }

    /// The executor of the group's next loop (a new one for a loop the group did not list).
    func next() -> EventLoopTaskExecutor {
        let loop = group.next()
        return executors[ObjectIdentifier(loop)] ?? EventLoopTaskExecutor(loop)
    }
}
