import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything a ``JSONRPCBatchingChannel`` knows, as one value: the messages queued for the next batch, the window
/// open for them, and the batches in flight with the callers still waiting on each.
///
/// Each event is a mutating method that returns what to do (send this batch, start or cancel this timer, resume
/// this caller) instead of doing it, so that the channel applies events under one lock and acts outside it (as
/// ``JSONRPCConnectionState`` does for connections). A message is queued only once its caller waits for it, so
/// the queue holds ready messages alone: a batch leaves exactly when it holds ``maxBatchSize`` of them, or when
/// its window ends.
struct JSONRPCBatchingState {
    /// A waiting caller: resumed with its answer or its failure, never thrown through (a `ParleyError` stays one).
    typealias Continuation = CheckedContinuation<Result<JSONRPCReply?, ParleyError>, Never>

    /// A message waiting for its batch, and its caller.
    struct Queued {
        let key: Int
        let message: Data
        let exchange: JSONRPCExchange
        let continuation: Continuation
    }

    /// A batch to send: ``JSONRPCBatchingChannel`` sends it, then reports ``finished(_:)``.
    struct Batch {
        let id: Int
        let messages: [Queued]
    }

    /// A batch that has left: the callers still waiting for it, and the task sending it (`nil` until it is known).
    private struct InFlight {
        var waiting: [Int: Continuation]
        var task: TaskLoop.Handle?
    }

    /// The most messages in one batch.
    let maxBatchSize: Int
    private var queue: [Queued] = []
    /// The window open for the queued messages (its number), and the timer that ends it once known.
    private var window: (id: Int, timer: TaskLoop.Handle?)?
    private var inFlight: [Int: InFlight] = [:]
    /// The batch in flight each waiting caller is in.
    private var batchOf: [Int: Int] = [:]
    private var nextNumber = 0

    init(maxBatchSize: Int) {
        self.maxBatchSize = max(maxBatchSize, 1)
    }

    /// A number no caller, window or batch had before.
    mutating func number() -> Int {
        nextNumber += 1
        return nextNumber
    }

    // MARK: Events

    /// What an arriving message leads to.
    enum Arrival {
        /// Nothing more: the message waits in the open window.
        case wait
        /// The caller was cancelled before its message was queued: resume it with a cancellation.
        case cancelled
        /// The message opened a window: start its timer and report it with ``windowStarted(_:timer:)``.
        case openWindow(id: Int)
        /// The batch is full: send it, and cancel the window's timer, if any.
        case send(Batch, cancelTimer: TaskLoop.Handle?)
    }

    /// A caller waits for the answer to its message; `isCancelled` says whether its task is cancelled already (read
    /// under the lock, so that a cancellation handler that ran before found nothing to remove).
    mutating func arrive(_ queued: Queued, isCancelled: Bool) -> Arrival {
        guard !isCancelled else { return .cancelled }
        queue.append(queued)
        if queue.count >= maxBatchSize {
            let timer = window?.timer
            window = nil
            return .send(takeBatch(), cancelTimer: timer)
        }
        guard window == nil else { return .wait }
        let id = number()
        window = (id, nil)
        return .openWindow(id: id)
    }

    /// The timer of window `id` has started; returns it when that window has closed already (to be cancelled).
    mutating func windowStarted(_ id: Int, timer: TaskLoop.Handle) -> TaskLoop.Handle? {
        guard window?.id == id else { return timer }
        window?.timer = timer
        return nil
    }

    /// Window `id` has ended: the batch to send, if that window is still open and holds messages.
    mutating func windowEnded(_ id: Int) -> Batch? {
        guard window?.id == id else { return nil }
        window = nil
        return queue.isEmpty ? nil : takeBatch()
    }

    /// The task sending batch `id` has started; returns it when nobody waits for that batch any more (to be
    /// cancelled; a task that finished already ignores it).
    mutating func batchStarted(_ id: Int, task: TaskLoop.Handle) -> TaskLoop.Handle? {
        guard inFlight[id] != nil else { return task }
        inFlight[id]?.task = task
        return nil
    }

    /// What a caller that stops waiting leads to.
    struct Leaving {
        /// The caller, to resume with its cancellation (`nil` when its answer was handed to it already).
        var continuation: Continuation?
        /// A timer or a batch that nobody waits for any more, to cancel.
        var cancel: TaskLoop.Handle?
    }

    /// The caller `key` stops waiting (cancelled, or out of time): it leaves the queue or its batch in flight. A
    /// window left empty closes; a batch in flight that nobody waits for any more is cancelled.
    mutating func leave(_ key: Int) -> Leaving {
        if let index = queue.firstIndex(where: { $0.key == key }) {
            let queued = queue.remove(at: index)
            var timer: TaskLoop.Handle?
            if queue.isEmpty {
                timer = window?.timer
                window = nil
            }
            return Leaving(continuation: queued.continuation, cancel: timer)
        }
        guard let id = batchOf.removeValue(forKey: key) else { return Leaving() }
        let continuation = inFlight[id]?.waiting.removeValue(forKey: key)
        guard inFlight[id]?.waiting.isEmpty == true else { return Leaving(continuation: continuation) }
        return Leaving(continuation: continuation, cancel: inFlight.removeValue(forKey: id)?.task)
    }

    /// Batch `id` is done: the callers still waiting for it, by key, to resume with their answers.
    mutating func finished(_ id: Int) -> [Int: Continuation] {
        guard let batch = inFlight.removeValue(forKey: id) else { return [:] }
        for key in batch.waiting.keys { batchOf[key] = nil }
        return batch.waiting
    }

    // MARK: Helpers

    /// Takes the queued messages (never more than ``maxBatchSize``: a full queue leaves at once) as a batch in flight.
    private mutating func takeBatch() -> Batch {
        let messages = queue
        queue = []
        let id = number()
        var waiting: [Int: Continuation] = [:]
        waiting.reserveCapacity(messages.count)
        for queued in messages {
            waiting[queued.key] = queued.continuation
            batchOf[queued.key] = id
        }
        inFlight[id] = InFlight(waiting: waiting)
        return Batch(id: id, messages: messages)
    }
}
