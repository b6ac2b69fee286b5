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
/// curl's handle from the session (`_NativeProtocol.suspend()` → `curl_multi_remove_handle`: the transfer is
/// dropped) and `resume()` adds it back, which sends the request again and delivers the response a second time
/// from its first byte; `_EasyHandle.pauseReceive()` (`curl_easy_pause`) exists but nothing calls it, and
/// `_NativeProtocol` stops the process on a paused state ("Need to solve pausing receive."). What it does have is
/// a synchronous call on the session's work queue for every delegate event: `delegateQueue.addOperation(_:)`,
/// made from curl's write callback for each piece of body. ``GatedOperationQueue`` waits there, through
/// ``admit()``, while more than ``highWater`` bytes are unconsumed, until the consumer drained them below
/// ``lowWater``, and while ``maxPending`` events wait for the delegate queue to run them.
///
/// Both bounds matter. With only the first (64 MiB), a 1 GiB download into a file on a busy core peaked at
/// ~200 MiB: the consumer kept up, but the delegate queue fell behind curl, and the events queued for it (each
/// holding a 16 KiB curl write) were not counted. With 256 queued events (4 MiB) the peak is below 32 MiB.
///
/// That work queue is one serial queue for every URLSession of the process (FoundationNetworking 6.x), so while
/// a consumer is behind, every other URLSession transfer waits too. A body that is dropped or cancelled opens its
/// gate at once; a body kept but never read holds them ``maxHold`` per curl write.
final class ResponseGate: @unchecked Sendable {  // SAFE: every stored var is only read or written while `condition` is locked.
    /// Unconsumed bytes above which delivery stops with `backPressure: true`.
    static let tightHighWater = 2 << 20
    /// Unconsumed bytes below which delivery starts again with `backPressure: true`.
    static let tightLowWater = 512 << 10
    /// Delegate events queued but not yet run above which delivery stops with `backPressure: true`.
    static let tightMaxPending = 8
    /// Unconsumed bytes above which delivery stops by default (`backPressure: false`): the bound on what one
    /// response buffers for a slow consumer, high enough that a consumer which is merely slower than the network
    /// rarely makes every URLSession transfer of the process wait (at 16 MiB, the test suite's parallel transfers
    /// held the shared work queue long enough to push unrelated calls past their timeouts).
    static let boundedHighWater = 64 << 20
    /// Unconsumed bytes below which delivery starts again by default.
    static let boundedLowWater = 32 << 20
    /// Delegate events queued but not yet run above which delivery stops by default: 4 MiB of curl writes (each
    /// event carries at most one, `CURL_MAX_WRITE_SIZE`, 16 KiB). Holding for them waits only for a Dispatch
    /// thread to run the delegate queue, not for the consumer.
    static let boundedMaxPending = 256

    private let condition = NSCondition()
    private var unconsumed = 0
    private var pending = 0
    private var paused = false
    private var isOpen = false
    /// Unconsumed bytes above which delivery stops.
    let highWater: Int
    /// Unconsumed bytes below which delivery starts again.
    let lowWater: Int
    /// Delegate events queued but not yet run above which delivery stops.
    let maxPending: Int

    /// A gate that holds deliveries past `highWater` unconsumed bytes until they are down to `lowWater`, and while
    /// `maxPending` events are queued.
    init(highWater: Int, lowWater: Int, maxPending: Int) {
        self.highWater = highWater
        self.lowWater = lowWater
        self.maxPending = maxPending
    }

    /// The gate of a transport with `backPressure` on or off.
    convenience init(backPressure: Bool) {
        if backPressure {
            self.init(highWater: Self.tightHighWater, lowWater: Self.tightLowWater, maxPending: Self.tightMaxPending)
        } else {
            self.init(highWater: Self.boundedHighWater, lowWater: Self.boundedLowWater, maxPending: Self.boundedMaxPending)
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
        while holds {
            if !condition.wait(until: deadline) { break }
        }
        pending += 1
        condition.unlock()
    }

    /// Whether ``admit()`` would wait now. Read with `condition` locked.
    private var holds: Bool {
        !isOpen && (paused || pending >= maxPending)
    }

    /// Whether the next delivery would be held now (for tests).
    var wouldHold: Bool {
        condition.lock()
        defer { condition.unlock() }
        return holds
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
