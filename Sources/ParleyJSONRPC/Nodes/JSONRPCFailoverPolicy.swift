public import Parley

/// How a ``JSONRPCFailoverChannel`` ranks its endpoints and rests the failing ones.
public struct JSONRPCFailoverPolicy: Sendable, Hashable {
    /// How long an endpoint rests after a failure; doubled for each failure in a row, up to ``maxRest``.
    public var rest: Duration
    /// The longest rest.
    public var maxRest: Duration
    /// The weight of the newest latency in an endpoint's moving average (0 to 1).
    public var latencyWeight: Double
    /// The error codes of an answer that mean the endpoint, not the call, failed (rate limits): a read that gets one
    /// is tried on the next endpoint.
    public var failoverCodes: Set<Int>
    /// Every this many reads, one goes to the awake endpoint used least recently instead of the best, so that an
    /// endpoint judged on an unlucky answer (a cold connection, a busy moment) is measured again; `nil` never.
    public var explorationInterval: Int?

    /// A policy: rest 5 s after a failure, up to 60 s; latency averaged with weight 0.3; `-32005` fails over; every
    /// 10th read measures another endpoint again.
    public init(
        rest: Duration = .seconds(5),
        maxRest: Duration = .seconds(60),
        latencyWeight: Double = 0.3,
        failoverCodes: Set<Int> = [-32005],
        explorationInterval: Int? = 10
    ) {
        self.rest = rest
        self.maxRest = max(maxRest, rest)
        self.latencyWeight = min(max(latencyWeight, 0.01), 1)
        self.failoverCodes = failoverCodes
        self.explorationInterval = explorationInterval.map { max($0, 2) }
    }

    /// Whether `error` says the endpoint failed (it could not be reached or answered in time, or answered 429 or 5xx),
    /// rather than the call.
    public func isEndpointFailure(_ error: ParleyError) -> Bool {
        switch error.kind {
        case .transport, .timeout: return true
        case .unacceptableStatus:
            guard let code = error.status?.code else { return true }
            return code == 429 || code >= 500
        default: return false
        }
    }
}

/// What a ``JSONRPCFailoverChannel`` knows of one endpoint.
public struct JSONRPCEndpointStatus: Sendable, Hashable {
    /// The endpoint's position in the channel's list.
    public var index: Int
    /// Messages sent to it.
    public var requests: Int
    /// Failures, in all.
    public var failures: Int
    /// Failures in a row, up to now.
    public var consecutiveFailures: Int
    /// The moving average of its answers' latency, once it answered.
    public var averageLatency: Duration?
    /// Whether it rests now (it failed, and is not tried until its rest ends unless every endpoint rests).
    public var isResting: Bool
}
