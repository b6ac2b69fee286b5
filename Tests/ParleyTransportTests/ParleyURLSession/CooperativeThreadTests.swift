import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyURLSession
import Synchronization
import Testing

@testable import ParleyTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A delegate queue that holds FoundationNetworking's work queue from the inside, as a hostile server can (a
/// response with 100 000 trailer fields, a 10 GiB redirect body): FoundationNetworking calls `addOperation(_:)` on
/// that work queue, which on Linux is one serial queue for every URLSession of the process, and this one does not
/// return until ``release()``.
// swift-format-ignore
final class WorkQueueWedge: OperationQueue, @unchecked Sendable {  // SAFE: `state` is a Mutex; the rest is OperationQueue's own, which is thread-safe.
    private struct State {
        var held = false
        var released = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let condition = NSCondition()

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        let waiters = state.withLock { state in
            state.held = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        condition.lock()
        while !state.withLock({ $0.released }) { condition.wait() }
        condition.unlock()
        super.addOperation(block)
    }

    /// Returns once FoundationNetworking's work queue is held here.
    func held() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.held { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the work queue go.
    func release() {
        state.withLock { $0.released = true }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}

@Suite("No URLSession wait on Swift's threads", .timeLimit(.minutes(2)))
struct CooperativeThreadTests {
    /// Issue 14, item 1. On Linux, Swift's cooperative pool and `DispatchQueue.global()` share libdispatch's
    /// default-priority thread pool, which has as many threads as cores and grows by about one thread a second when
    /// they block. URLSessionTransport used to create and resume its tasks on `DispatchQueue.global()`; while
    /// FoundationNetworking's work queue was held, each call parked one of those threads, and 24 calls stalled every
    /// task of the process, AsyncHTTPClient calls included, for about 24 s.
    @Test("while FoundationNetworking's work queue is held, URLSession calls wait without stalling the rest of the process")
    func wedgedWorkQueue() async throws {
        let server = try await DemoServer.start()
        let url = try #require(URL(string: server.baseURL))
        let wedge = WorkQueueWedge()
        let wedgedSession = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: wedge)
        let wedgedTask = wedgedSession.dataTask(with: url.appendingPathComponent("users")) { _, _, _ in }
        Thread.detachNewThread { wedgedTask.resume() }
        await wedge.held()

        let urlSession = Client(baseURL: url, transport: URLSessionTransport())
        let asyncHTTPClient = Client(baseURL: url, transport: AsyncHTTPClientTransport.shared)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask { _ = try await urlSession.send(GetUser(id: 1)) }
            }
            // The rest of the process goes on: plain tasks and AsyncHTTPClient calls take milliseconds here (tens under
            // ThreadSanitizer); stalled, they took the ~24-30 s libdispatch needs to add 24 threads. The 15 s bound
            // leaves room for a loaded machine and still fails that stall.
            let start = ContinuousClock.now
            for _ in 0..<5 {
                let user = try await asyncHTTPClient.send(GetUser(id: 1))
                #expect(user.id == 1)
                #expect(await Task.detached { 42 }.value == 42)
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed < .seconds(15), "the process stalled for \(elapsed) while URLSession's work queue was held")
            wedge.release()
            try await group.waitForAll()
        }
        try await urlSession.shutdown()
        wedgedSession.finishTasksAndInvalidate()
        await server.stop()
    }
}
