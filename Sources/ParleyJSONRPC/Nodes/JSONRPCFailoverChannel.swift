public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One channel over several endpoints of the same service (node providers): reads go to the best-ranked endpoint,
/// writes stick to one.
///
/// ```swift
/// let providers = urls.map { JSONRPCHTTPChannel(client: Client(baseURL: $0)) as any JSONRPCChannel }
/// let rpc = JSONRPCClient(channel: JSONRPCFailoverChannel(providers))
/// let balance = try await rpc.call(GetBalance(address: address))      // isRepeatable: a read
/// ```
///
/// - A repeatable message (``JSONRPCMethod/isRepeatable``: every call in it is a read) goes to the endpoint with
///   the lowest average latency among those not resting (one never measured comes first); when that endpoint
///   fails (``JSONRPCFailoverPolicy/isEndpointFailure(_:)``, or an answer with a code of
///   ``JSONRPCFailoverPolicy/failoverCodes``) it rests and the message goes to the next, until every endpoint was
///   tried once.
/// - Any other message (a write, a notification) goes to the current write endpoint, the first in the list that does
///   not rest, and keeps going there while it works, so that a sequence of writes (nonces) meets one node. A write
///   that fails is not sent elsewhere (it may have been applied): it throws, and the next write moves on.
/// - A failed endpoint rests for ``JSONRPCFailoverPolicy/rest``, doubled for each failure in a row; when every
///   endpoint rests, the one whose rest ends first is used.
public final class JSONRPCFailoverChannel: JSONRPCChannel {
    /// The endpoints, in order of preference for writes.
    public let endpoints: [any JSONRPCChannel]
    /// Ranking and resting.
    public let policy: JSONRPCFailoverPolicy

    private struct Health {
        var requests = 0
        var failures = 0
        var consecutiveFailures = 0
        var latency: Double?
        var restingUntil: ContinuousClock.Instant?
        /// The read count when it last got a read.
        var lastRead = 0
    }

    private struct State {
        var health: [Health]
        var writer: Int?
        var reads = 0
    }

    private let state: LockedState<State>
    private let clock = ContinuousClock()

    /// A channel over `endpoints` (at least one).
    public init(_ endpoints: [any JSONRPCChannel], policy: JSONRPCFailoverPolicy = JSONRPCFailoverPolicy()) {
        self.endpoints = endpoints
        self.policy = policy
        self.state = LockedState(State(health: Array(repeating: Health(), count: endpoints.count)))
    }

    /// What the channel knows of each endpoint now.
    public var status: [JSONRPCEndpointStatus] {
        let now = clock.now
        return state.withLock { state in
            state.health.enumerated().map { index, health in
                JSONRPCEndpointStatus(
                    index: index,
                    requests: health.requests,
                    failures: health.failures,
                    consecutiveFailures: health.consecutiveFailures,
                    averageLatency: health.latency.map { .nanoseconds(Int64($0 * 1e9)) },
                    isResting: health.restingUntil.map { $0 > now } ?? false
                )
            }
        }
    }

    /// ``exchange(_:describing:)`` for a message that is not known to be repeatable.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await exchange(message, describing: JSONRPCExchange(methods: [], ids: ids, isRepeatable: false))
    }

    /// Sends a read to the best endpoint (and the next on failure), a write to the current write endpoint.
    public func exchange(_ message: Data, describing exchange: JSONRPCExchange) async throws(ParleyError) -> JSONRPCReply? {
        guard !endpoints.isEmpty else {
            throw ParleyError(.invalidRequest, "A JSONRPCFailoverChannel needs at least one endpoint. Nothing was sent.")
        }
        guard exchange.isRepeatable, !exchange.ids.isEmpty else {
            let index = writeEndpoint()
            return try await send(message, exchange, to: index).get()
        }
        var tried: Set<Int> = []
        var lastFailure: ParleyError?
        while tried.count < endpoints.count, !Task.isCancelled {
            let index = readEndpoint(excluding: tried)
            tried.insert(index)
            switch await send(message, exchange, to: index) {
            case .success(let reply): return reply
            case .failure(let error):
                guard policy.isEndpointFailure(error) || error.kind == .jsonRPCError else { throw error }
                lastFailure = error
            }
        }
        throw lastFailure ?? ParleyError(.cancelled, "The JSON-RPC call was cancelled.")
    }

    /// Sends to endpoint `index`, recording its latency or its failure. An answer with a failover code is a failure
    /// of kind ``Parley/ParleyError/Kind/jsonRPCError`` here, for a read only.
    private func send(_ message: Data, _ exchange: JSONRPCExchange, to index: Int) async -> Result<JSONRPCReply?, ParleyError> {
        let start = clock.now
        state.withLock { $0.health[index].requests += 1 }
        do throws(ParleyError) {
            let reply = try await endpoints[index].exchange(message, describing: exchange)
            if exchange.isRepeatable, let reply, let code = Self.errorCode(reply.data), policy.failoverCodes.contains(code) {
                failed(index)
                var error = ParleyError(
                    .jsonRPCError,
                    "The endpoint \(index) answered with the error code \(code), which fails over."
                )
                error = error.attaching(response: reply.head, body: reply.data)
                return .failure(error)
            }
            succeeded(index, after: start.duration(to: clock.now))
            return .success(reply)
        } catch {
            if policy.isEndpointFailure(error) { failed(index) }
            return .failure(error)
        }
    }

    private func succeeded(_ index: Int, after latency: Duration) {
        let (seconds, attoseconds) = latency.components
        let sample = Double(seconds) + Double(attoseconds) / 1e18
        state.withLock { state in
            let weight = policy.latencyWeight
            state.health[index].latency = state.health[index].latency.map { $0 * (1 - weight) + sample * weight } ?? sample
            state.health[index].consecutiveFailures = 0
            state.health[index].restingUntil = nil
        }
    }

    private func failed(_ index: Int) {
        let now = clock.now
        state.withLock { state in
            state.health[index].failures += 1
            state.health[index].consecutiveFailures += 1
            var rest = policy.rest
            for _ in 1..<min(state.health[index].consecutiveFailures, 30) where rest < policy.maxRest { rest = rest * 2 }
            state.health[index].restingUntil = now + min(rest, policy.maxRest)
            if state.writer == index { state.writer = nil }
        }
    }

    /// The endpoint for a read: not resting, never measured first, then the lowest average latency (every
    /// ``JSONRPCFailoverPolicy/explorationInterval`` reads, the one used least recently); when all rest, the one whose
    /// rest ends first.
    private func readEndpoint(excluding tried: Set<Int>) -> Int {
        let now = clock.now
        return state.withLock { state in
            let candidates = state.health.indices.filter { !tried.contains($0) }
            let awake = candidates.filter { (state.health[$0].restingUntil.map { $0 <= now }) ?? true }
            let chosen: Int
            if tried.isEmpty, let interval = policy.explorationInterval, (state.reads + 1) % interval == 0,
                let stalest = awake.min(by: { state.health[$0].lastRead < state.health[$1].lastRead })
            {
                chosen = stalest
            } else if let best = awake.min(by: { (state.health[$0].latency ?? -1) < (state.health[$1].latency ?? -1) }) {
                chosen = best
            } else {
                chosen = candidates.min { (state.health[$0].restingUntil ?? now) < (state.health[$1].restingUntil ?? now) } ?? 0
            }
            if tried.isEmpty { state.reads += 1 }
            state.health[chosen].lastRead = state.reads
            return chosen
        }
    }

    /// The endpoint for writes: the current one while it works, else the first in order that does not rest.
    private func writeEndpoint() -> Int {
        let now = clock.now
        return state.withLock { state in
            if let writer = state.writer { return writer }
            let awake = state.health.indices.first { (state.health[$0].restingUntil.map { $0 <= now }) ?? true }
            let chosen =
                awake ?? state.health.indices.min {
                    (state.health[$0].restingUntil ?? now) < (state.health[$1].restingUntil ?? now)
                }
                ?? 0
            state.writer = chosen
            return chosen
        }
    }

    /// The code of a single error answer, if `data` is one.
    private static func errorCode(_ data: Data) -> Int? {
        struct ErrorAnswer: Decodable {
            struct Object: Decodable { let code: Int }
            let error: Object?
        }
        return (try? JSONDecoder().decode(ErrorAnswer.self, from: data))?.error?.code
    }
}
