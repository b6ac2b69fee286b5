#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// When and how often ``RetryMiddleware`` sends a request again.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (3: the first and at most two retries).
    public var maxAttempts: Int
    /// The cap on the first backoff; each later one doubles (``multiplier``) up to ``maxBackoff``. The wait is a
    /// random duration between zero and the cap ("full jitter"), so callers that failed together do not come back
    /// together.
    public var initialBackoff: Duration
    /// The largest backoff cap.
    public var maxBackoff: Duration
    /// How much the backoff cap grows after each attempt.
    public var multiplier: Double
    /// Time allowed for all attempts and waits together, from the first attempt; no wait or attempt starts that
    /// would end past it. `nil` for none (the client's or endpoint's `timeout` still bounds the whole call).
    public var deadline: Duration?
    /// Time allowed for each attempt until its response head arrives; an attempt that takes longer fails with
    /// ``ParleyError/Kind/timeout`` and is retried. `nil` for none.
    public var attemptTimeout: Duration?
    /// Response status codes that are retried. Default: 408, 429, 500, 502, 503, 504.
    public var retryableStatusCodes: Set<Int>
    /// The longest `Retry-After` (seconds or HTTP-date) honoured; a response asking for a longer wait is returned
    /// as it is rather than waited for.
    public var maxRetryAfter: Duration
    /// Whether requests that are not idempotent (POST, PATCH, unless the endpoint says ``Endpoint/isIdempotent``)
    /// are retried too. Default: `false`, since the server may have acted on the first attempt.
    public var retriesNonIdempotentRequests: Bool

    /// A policy; every parameter has a production default.
    public init(
        maxAttempts: Int = 3,
        initialBackoff: Duration = .milliseconds(200),
        maxBackoff: Duration = .seconds(10),
        multiplier: Double = 2,
        deadline: Duration? = nil,
        attemptTimeout: Duration? = nil,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        maxRetryAfter: Duration = .seconds(60),
        retriesNonIdempotentRequests: Bool = false
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = max(.zero, initialBackoff)
        self.maxBackoff = max(.zero, maxBackoff)
        self.multiplier = max(1, multiplier)
        self.deadline = deadline
        self.attemptTimeout = attemptTimeout
        self.retryableStatusCodes = retryableStatusCodes
        self.maxRetryAfter = max(.zero, maxRetryAfter)
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
    }

    /// The wait a `Retry-After` field value asks for (RFC 9110 §10.2.3: delay-seconds, or an HTTP-date in any of
    /// its three forms), measured from `now`; `nil` if the value is neither. A date in the past asks for none.
    public static func retryAfterDelay(_ value: String, now: Date = Date()) -> Duration? {
        RetryAfter.delay(value, now: now)
    }

    /// The backoff before retry number `retry` (1 for the first retry): random between zero and
    /// `min(maxBackoff, initialBackoff × multiplier^(retry − 1))`.
    public func backoff(beforeRetry retry: Int) -> Duration {
        Self.backoff(beforeRetry: retry, initial: initialBackoff, maximum: maxBackoff, multiplier: multiplier)
    }

    /// Parley's one backoff computation, for the policies of other targets too (JSON-RPC's retries and reconnects):
    /// the cap of retry `retry` (from 1) is `min(maximum, initial × multiplier^(retry − 1))`, and the wait is random
    /// between zero and the cap with `jitter` ("full jitter"), else the cap itself.
    package static func backoff(
        beforeRetry retry: Int,
        initial: Duration,
        maximum: Duration,
        multiplier: Double,
        jitter: Bool = true
    ) -> Duration {
        let maximum = max(.zero, maximum)
        var cap = max(.zero, initial)
        for _ in 1..<max(1, retry) {
            if cap >= maximum { break }
            cap = cap * max(1, multiplier)
        }
        let limit = min(cap, maximum)
        let (seconds, attoseconds) = limit.components
        let nanoseconds = min(Double(seconds) * 1e9 + Double(attoseconds) / 1e9, 9e18)
        guard nanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64(jitter ? Double.random(in: 0...nanoseconds) : nanoseconds))
    }
}

/// One retry that ``RetryMiddleware`` is about to make, for logs and metrics.
public struct RetryEvent: Sendable, CustomStringConvertible {
    /// The endpoint's name (or the operation ID outside a `Client`).
    public var endpoint: String
    /// The attempt that failed, from 1.
    public var failedAttempt: Int
    /// The status of the failed attempt's response, if one arrived.
    public var status: Int?
    /// The failed attempt's error, if it failed without a response.
    public var error: ParleyError?
    /// The wait before the next attempt.
    public var delay: Duration
    /// Whether the wait was the server's `Retry-After`.
    public var delayFromRetryAfter: Bool

    /// "GetUser attempt 1 failed (503); retrying in 0.2 s".
    public var description: String {
        let cause = status.map { "\($0)" } ?? error.map { "\($0.kind): \($0.message)" } ?? "unknown"
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        let wait = (seconds * 1000).rounded() / 1000
        return "\(endpoint) attempt \(failedAttempt) failed (\(cause)); attempt \(failedAttempt + 1) in \(wait) s"
            + (delayFromRetryAfter ? " (Retry-After)" : "")
    }
}
