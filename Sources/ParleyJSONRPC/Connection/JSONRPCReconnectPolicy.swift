import Parley

/// How a connection that dropped is re-established: exponential backoff with full jitter, up to a number of
/// attempts in a row.
///
/// Attempt `n` (from 1) waits a random time between zero and `min(maxDelay, initialDelay × multiplier^(n-1))`
/// before connecting (full jitter spreads many clients' reconnects apart). After `maxAttempts` failed
/// attempts in a row the channel gives up and closes; a successful connection starts the count again.
public struct JSONRPCReconnectPolicy: Sendable, Hashable {
    /// Failed attempts in a row before giving up; `nil` to try for ever.
    public var maxAttempts: Int?
    /// The upper bound of the first wait.
    public var initialDelay: Duration
    /// The largest upper bound of any wait.
    public var maxDelay: Duration
    /// How much the upper bound grows per attempt.
    public var multiplier: Double
    /// Whether waits are random in `0...bound` (full jitter) or exactly the bound.
    public var jitter: Bool

    /// A policy; the defaults wait up to 0.1 s, 0.2 s, 0.4 s … capped at 30 s, and give up after 10 attempts.
    public init(
        maxAttempts: Int? = 10,
        initialDelay: Duration = .milliseconds(100),
        maxDelay: Duration = .seconds(30),
        multiplier: Double = 2,
        jitter: Bool = true
    ) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The default policy.
    public static let `default` = Self()

    /// The wait before attempt `attempt` (from 1), computed as ``/Parley/RetryPolicy`` computes its backoff.
    public func delay(beforeAttempt attempt: Int) -> Duration {
        RetryPolicy.backoff(
            beforeRetry: attempt,
            initial: initialDelay,
            maximum: maxDelay,
            multiplier: multiplier,
            jitter: jitter
        )
    }
}
