import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// Back-pressure for one streamed response: holds FoundationNetworking's delivery of body data while the
/// consumer is behind, so curl stops reading the socket and TCP slows the server down.
///
/// FoundationNetworking has no working pause for a running task on Linux: `URLSessionTask.suspend()` removes
/// curl's handle from the session (the transfer is dropped) and `resume()` adds it back, which sends the request
/// again and delivers the response a second time from its first byte. What it does have is a synchronous call
/// on the session's work queue for every delegate event: `delegateQueue.addOperation(_:)`, made from curl's
/// write callback for each piece of body. ``GatedOperationQueue`` waits there, through ``admit()``, while more
/// than ``highWater`` bytes are unconsumed, until the consumer drained them below ``lowWater`` (and, with
/// back-pressure on, while ``maxPendingEvents`` events wait for the delegate queue).
///
/// That work queue is one serial queue for every URLSession of the process (FoundationNetworking 6.x), so while
/// a consumer is behind, every other URLSession transfer waits too. A body that is dropped or cancelled opens its
/// gate at once; a body kept but never read holds them ``maxHold`` per curl write.
final class ResponseGate: @unchecked Sendable {  // SAFE: every stored var is only read or written while `condition` is locked.
    /// Unconsumed bytes above which delivery stops with `backPressure: true`.
    static let tightHighWater = 2 << 20
    /// Unconsumed bytes below which delivery starts again with `backPressure: true`.
    static let tightLowWater = 512 << 10
    /// Unconsumed bytes above which delivery stops by default (`backPressure: false`): the bound on what one
    /// response buffers for a slow consumer, high enough that a consumer which is merely slower than the network
    /// rarely makes every URLSession transfer of the process wait.
    static let boundedHighWater = 64 << 20
    /// Unconsumed bytes below which delivery starts again by default.
    static let boundedLowWater = 32 << 20
    /// Delegate events queued but not yet run (each carries at most one curl write of body data).
    static let maxPendingEvents = 8

    private let condition = NSCondition()
    private var unconsumed = 0
    private var pending = 0
    private var paused = false
    private var isOpen = false
    /// Unconsumed bytes above which delivery stops.
    let highWater: Int
    /// Unconsumed bytes below which delivery starts again.
    let lowWater: Int
    /// Whether events also wait while ``maxPendingEvents`` are queued (back-pressure on). Off by default: that wait
    /// depends on a Dispatch thread running the delegate queue, and a process whose Dispatch threads are busy
    /// would then hold FoundationNetworking's shared queue for every transfer.
    let capsPending: Bool

    /// A gate that holds deliveries past `highWater` unconsumed bytes until they are down to `lowWater`.
    init(highWater: Int, lowWater: Int, capsPending: Bool) {
        self.highWater = highWater
        self.lowWater = lowWater
        self.capsPending = capsPending
    }

    /// The gate of a transport with `backPressure` on or off.
    convenience init(backPressure: Bool) {
        if backPressure {
            self.init(highWater: Self.tightHighWater, lowWater: Self.tightLowWater, capsPending: true)
        } else {
            self.init(highWater: Self.boundedHighWater, lowWater: Self.boundedLowWater, capsPending: false)
        }
    }

    /// The longest one event is held. Past it the event goes through anyway, so a response whose consumer waits
    /// for another response of the same process (read one after the other while both are in flight) slows that
    /// one to a crawl instead of deadlocking it; a stopped consumer's buffer grows by one curl write per hold.
    static let maxHold: TimeInterval = 2

    /// Waits until one more delegate event may be queued, or ``maxHold``. Runs on the session's work queue.
    func admit() {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: Self.maxHold)
        while !isOpen && (paused || (capsPending && pending >= Self.maxPendingEvents)) {
            if !condition.wait(until: deadline) { break }
        }
        pending += 1
        condition.unlock()
    }

    /// A queued delegate event ran.
    func ran() {
        condition.lock()
        pending -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Body bytes were handed to the consumer's buffer.
    func received(_ count: Int) {
        condition.lock()
        unconsumed += count
        if unconsumed >= highWater { paused = true }
        condition.unlock()
    }

    /// The consumer took `count` bytes.
    func consumed(_ count: Int) {
        condition.lock()
        unconsumed -= count
        if paused && unconsumed <= lowWater {
            paused = false
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Stops gating for good: the consumer is gone or the task is being cancelled (cancelling waits for the
    /// session's queue, so the queue must not be held here).
    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A session's serial delegate queue that holds each event at ``ResponseGate/admit()`` of the task currently
/// using the session (a pooled session runs one task at a time, see ``SessionPool``).
// swift-format-ignore
final class GatedOperationQueue: OperationQueue, @unchecked Sendable {  // SAFE: `gate` is only touched inside `LockedState`; the rest is OperationQueue's own, which is thread-safe.
    private let gate = LockedState<ResponseGate?>(nil)

    override init() {
        super.init()
        maxConcurrentOperationCount = 1
    }

    /// Gates further events with `gate` (`nil`: none).
    func use(_ gate: ResponseGate?) {
        self.gate.withLock { $0 = gate }
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        guard let gate = gate.withLock({ $0 }) else { return super.addOperation(block) }
        gate.admit()
        super.addOperation {
            block()
            gate.ran()
        }
    }
}
