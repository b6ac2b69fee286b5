/// Caps how much extra load a client's retries may add, so a server that is down is not hammered by every
/// caller retrying every request.
///
/// A token bucket: each first attempt deposits ``ratio`` of a token, each retry takes one whole token, and a
/// retry is made only when a token is there. The bucket starts with ``reserve`` tokens (so a quiet client can
/// still retry a few times) and holds at most `reserve + 100 × ratio` tokens. Over time, retries add at most
/// `ratio` of the requests' load (0.2: at most one retry per five requests) plus the reserve.
///
/// One budget belongs to one ``RetryMiddleware``, so to the clients that share it; pass the same budget to
/// several middlewares to share it more widely.
public final class RetryBudget: Sendable {
    /// Tokens deposited per first attempt: the most retries per request over time.
    public let ratio: Double
    /// Tokens available at the start, and the floor the bucket refills above.
    public let reserve: Double
    private let balance: LockedState<Double>

    /// A budget allowing retries of at most `ratio` of the requests (default 0.2) plus `reserve` (default 10).
    public init(ratio: Double = 0.2, reserve: Int = 10) {
        self.ratio = max(0, ratio)
        self.reserve = Double(max(0, reserve))
        self.balance = LockedState(Double(max(0, reserve)))
    }

    /// A budget that never refuses a retry (the policy's `maxAttempts` still applies).
    public static var unlimited: RetryBudget { RetryBudget(ratio: .infinity, reserve: 0) }

    /// The most tokens the bucket holds: the reserve plus what 100 first attempts deposit.
    private var capacity: Double { reserve + max(1, ratio * 100) }

    /// The tokens available now.
    public var available: Double { balance.withLock { $0 } }

    /// Records a first attempt (``RetryMiddleware`` calls it; call it yourself for retries of your own).
    public func deposit() {
        guard ratio.isFinite else { return }
        balance.withLock { $0 = min(capacity, $0 + ratio) }
    }

    /// Takes a token for a retry; `false` when the budget is spent.
    public func withdraw() -> Bool {
        guard ratio.isFinite else { return true }
        return balance.withLock { balance in
            guard balance >= 1 else { return false }
            balance -= 1
            return true
        }
    }
}
