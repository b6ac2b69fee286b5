import Parley

/// The limits of one call at work (``JSONRPCCallLimits``): when its total ends, when its idle clock last started (the
/// send of its current attempt, or its latest progress notification), and which limit fired. The watchdog it gives
/// `Deadline` is the call's one clock for both limits.
final class JSONRPCCallWatch: Sendable {
    /// A limit that passed.
    enum Limit: Sendable {
        case total(Duration)
        case idle(Duration)
    }

    private struct State {
        /// When the idle clock last started.
        var since: ContinuousClock.Instant
        var fired: Limit?
    }

    /// The total (the call's, else the client's timeout).
    let total: Duration?
    /// The idle limit.
    let idle: Duration?
    /// When the total passes.
    private let end: ContinuousClock.Instant?
    /// Whether progress notifications restart the idle clock (the call has a token its channel watches).
    let watchesProgress: Bool
    private let state: LockedState<State>

    /// The limits of a call starting now; `fallback` is the client's timeout, the total when `limits` gives none.
    /// `nil` when the call has no limit at all: nothing to watch.
    init?(_ limits: JSONRPCCallLimits, fallback: Duration?, watchesProgress: Bool) {
        let now = ContinuousClock.now
        total = limits.total ?? fallback
        idle = limits.idle
        guard total != nil || idle != nil else { return nil }
        end = total.map { now + $0 }
        self.watchesProgress = watchesProgress
        state = LockedState(State(since: now))
    }

    /// Starts the idle clock again: an attempt is being sent, or a progress notification arrived.
    func restart() {
        let now = ContinuousClock.now
        state.withLock { $0.since = now }
    }

    /// Whether waiting `delay` (before another attempt) still leaves time before the total passes.
    func allowsWait(_ delay: Duration) -> Bool {
        guard let end else { return true }
        return ContinuousClock.now + delay < end
    }

    /// The watchdog of one attempt, for `Deadline.run(watchedBy:expired:_:)`: returns `true` once a limit
    /// has passed (recorded for ``expiry(name:id:)``), `false` when cancelled.
    func watchdog() async -> Bool {
        let now = ContinuousClock.now
        guard let first = check(now) else { return true }
        // The watch's first look is at `first`; then `check` says when to look again.
        return await Deadline.watch(idle: first - now, check: check)
    }

    /// The next time to look at `now`, or `nil` when a limit has passed (and records which).
    private func check(_ now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.withLock { state in
            if let end, let total, now >= end {
                state.fired = .total(total)
                return nil
            }
            guard let idle else { return end }
            guard let next = Deadline.nextLook(since: state.since, idle: idle, now: now) else {
                state.fired = .idle(idle)
                return nil
            }
            return end.map { min($0, next) } ?? next
        }
    }

    /// The limit that fired (the watchdog records it before it returns `true`).
    private var fired: Limit? {
        state.withLock { $0.fired }
    }

    /// The failure of the call `name` (`id`) whose limit passed.
    func expiry(name: String, id: JSONRPCID) -> ParleyError {
        let call = "The JSON-RPC call \(name) (id \(id))"
        switch fired {
        case .idle(let idle) where watchesProgress:
            return ParleyError(
                .timeout,
                "\(call) got no progress notification and no answer within its idle limit of \(idle) "
                    + "(JSONRPCCallLimits.idle): the peer went quiet. Raise the idle limit if the peer legitimately works "
                    + "this long between progress reports."
            )
        case .idle(let idle):
            return ParleyError(
                .timeout,
                "\(call) got no answer within its idle limit of \(idle) (JSONRPCCallLimits.idle), counted from the send: "
                    + "nothing restarts it, as the call has no progress token or its channel carries no notifications. "
                    + "Raise it, or call with progress on a channel that carries it (stdio, WebSocket, MCP Streamable HTTP)."
            )
        case .total(let total):
            return ParleyError(
                .timeout,
                "\(call) got no answer within its timeout of \(total), its total limit (the call's timeout or "
                    + "JSONRPCCallLimits.total, else the JSONRPCClient's timeout) counted from its start"
                    + (watchesProgress ? "; progress notifications do not extend it" : "")
                    + ". Raise it if the peer is legitimately this slow."
            )
        case nil:
            return ParleyError(.timeout, "\(call) got no answer in time. Raise its limits if the peer is legitimately this slow.")
        }
    }

    /// Words for the peer's cancellation notification, once the call timed out.
    var cancellationReason: String {
        switch fired {
        case .idle(let idle) where watchesProgress: "timed out: no progress within \(idle)"
        case .idle(let idle): "timed out after \(idle)"
        case .total(let total): "timed out after \(total)"
        case nil: "timed out"
        }
    }
}
