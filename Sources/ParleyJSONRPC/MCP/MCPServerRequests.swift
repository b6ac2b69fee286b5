import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The server's requests to one ``MCPStreamableHTTPChannel``, from any of its event streams: handled in a task
/// group of the channel's connection (``JSONRPCConnection/tasks``), their answers `POST`ed from one bounded queue by at most ``senders`` requests at once.
///
/// The connection's inbound router admits at most `maxPeerRequests` (the channel's `maxServerRequests`, 1024) of them at once, and a
/// request keeps its place until its answer is posted; so a server that floods the channel with requests fills the
/// places, not the memory. Beyond them, a request is refused with `-32000` while at most `maxRefusals` refusals wait
/// to be posted, and dropped unanswered after that. Reading never waits for any of it: the event stream that carries
/// a call's answer goes on.
package final class MCPServerRequests: Sendable {
    /// Posts one answer to the server.
    typealias Post = @Sendable (Data) async -> Void

    /// The most answers posted at once.
    package static let senders = 4

    /// One answer waiting to be posted; a handled request's handler waits for it (`waiter`), a refusal does not.
    private struct Outgoing: Sendable {
        let answer: Data
        let waiter: Int?
    }

    private struct State {
        var runner: TaskLoop.Handle?
        var closed = false
        /// The handlers waiting for their answers to be posted.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        /// Refusals waiting to be posted (not yet taken by a sender).
        var refusals = 0
    }

    /// The most refusals waiting to be posted; more are dropped.
    let maxRefusals: Int
    private let state = LockedState(State())
    private let tasks: TaskLoop
    private let handlings: AsyncStream<JSONRPCInbound.Handling>.Continuation
    private let handlingStream: AsyncStream<JSONRPCInbound.Handling>
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let outgoingStream: AsyncStream<Outgoing>

    /// Requests whose refusals are dropped beyond `maxRefusals` waiting, handled and posted in `tasks`.
    init(maxRefusals: Int, tasks: TaskLoop) {
        self.maxRefusals = maxRefusals
        self.tasks = tasks
        // Unbounded, yet bounded by the connection: a handling holds one of its places until its answer is posted, and
        // a refusal is queued only within `maxRefusals`.
        (handlingStream, handlings) = AsyncStream.makeStream()
        (outgoingStream, outgoing) = AsyncStream.makeStream()
    }

    /// Takes in what the inbound router made of one of the server's messages: a handling runs in the group, an answer
    /// at once (a refusal, or the answer to a message that is not JSON) is queued, or dropped when ``maxRefusals``
    /// wait already. `post` sends an answer; the first call starts the group with it.
    func take(_ admitted: JSONRPCInbound.Admitted?, post: @escaping Post) {
        guard let admitted else { return }
        let queued = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            // In the connection's loop: it outlives the stream that brought the first request; `close()` cancels it.
            if state.runner == nil { state.runner = tasks.run { [self] in await run(post) } }
            if case .answer = admitted {
                guard state.refusals < maxRefusals else { return false }
                state.refusals += 1
            }
            return true
        }
        guard queued else { return }
        switch admitted {
        case .answer(let answer): outgoing.yield(Outgoing(answer: answer, waiter: nil))
        case .handling(let handling): handlings.yield(handling)
        }
    }

    /// Queues the answer of a handled request, and returns once it was posted (or the channel closed): the writer of
    /// the handlings that ``take(_:post:)`` runs.
    func answer(_ answer: Data) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = state.withLock { state -> Int? in
                guard !state.closed else { return nil }
                defer { state.nextWaiter += 1 }
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let waiter else { return continuation.resume() }
            outgoing.yield(Outgoing(answer: answer, waiter: waiter))
        }
    }

    /// Stops handling and posting: the handlers running are cancelled, the answers waiting dropped.
    func close() {
        let (runner, waiters) = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return (state.runner, state.waiters.values)
        }
        handlings.finish()
        outgoing.finish()
        runner?.cancel()
        for waiter in waiters { waiter.resume() }
    }

    /// The group: the handlings, and the senders.
    private func run(_ post: @escaping Post) async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in await send(post) }
            for await handling in handlingStream { group.addTask(operation: handling) }
        }
    }

    /// Posts the queued answers, at most ``senders`` at once, in order.
    private func send(_ post: @escaping Post) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            var queue = outgoingStream.makeAsyncIterator()
            while true {
                // A sender is free before the next answer is taken: the others wait in the queue, where they count.
                if running == Self.senders, await group.next() != nil { running -= 1 }
                guard let next = await queue.next() else { break }
                if next.waiter == nil { state.withLock { $0.refusals -= 1 } }
                running += 1
                group.addTask { [state] in
                    await post(next.answer)
                    guard let id = next.waiter else { return }
                    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
        }
    }
}
