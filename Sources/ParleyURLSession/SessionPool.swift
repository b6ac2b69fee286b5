import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The sessions of a ``URLSessionTransport`` that owns them: one task at a time per session.
///
/// A session's delegate queue is the only place Parley can hold FoundationNetworking's delivery of a response
/// (``ResponseGate``), and the events queued there do not say which task they belong to; with one task per
/// session, each queue gates exactly one response. (It does not isolate the waits: on Linux every session of the
/// process shares one serial work queue, so a response whose consumer is behind holds every URLSession transfer
/// of the process until it drained, and so does a streamed request body whose source is behind.) HTTP/1.1 needs
/// a connection per request in flight anyway; idle sessions are reused most recent first, so sequential requests
/// keep using the same kept-alive connection.
final class SessionPool: Sendable {
    /// A session with its router and gated delegate queue.
    struct Member: Sendable {
        let session: URLSession
        let router: SessionRouter
        let queue: GatedOperationQueue
    }

    /// Idle sessions kept for reuse; more are invalidated when their task ends.
    static let maxIdle = 8

    private struct State {
        var idle: [Member] = []
        var closed = false
    }

    private let configuration: URLSessionConfiguration
    private let state = LockedState(State())
    /// The first session, whose configuration the others copy.
    let primary: URLSession

    init(configuration: URLSessionConfiguration) {
        self.configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        let first = Self.makeMember(configuration: self.configuration)
        primary = first.session
        state.withLock { $0.idle.append(first) }
    }

    private static func makeMember(configuration: URLSessionConfiguration) -> Member {
        let router = SessionRouter()
        let queue = GatedOperationQueue()
        let session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
        return Member(session: session, router: router, queue: queue)
    }

    /// A session for one task, gated by `gate`; give it back with ``release(_:)`` when the task completed.
    func lease(gatedBy gate: ResponseGate) -> Member {
        let member = state.withLock { $0.idle.popLast() } ?? Self.makeMember(configuration: configuration)
        member.queue.use(gate)
        return member
    }

    /// The task on `member` completed: its session is free for the next request.
    func release(_ member: Member) {
        member.queue.use(nil)
        let keep = state.withLock { state -> Bool in
            guard !state.closed, state.idle.count < Self.maxIdle else { return false }
            state.idle.append(member)
            return true
        }
        if !keep { member.session.finishTasksAndInvalidate() }
    }

    /// Invalidates idle sessions now and busy ones when their task ends.
    func shutdown() {
        let idle = state.withLock { state -> [Member] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for member in idle { member.session.finishTasksAndInvalidate() }
    }
}
