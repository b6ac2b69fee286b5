import Foundation

/// One side of a comparison: a name and one request (or one burst of `calls` concurrent calls).
struct Side: Sendable {
    let name: String
    /// How many calls one `run` makes: throughput counts calls, latency is per `run`.
    var calls = 1
    let run: @Sendable () async throws -> Void
}

/// The figures of one side over all rounds.
struct Figures {
    var throughputs: [Double] = []
    var latencies: [Duration] = []

    var medianThroughput: Double { throughputs.sorted()[throughputs.count / 2] }

    func percentile(_ p: Double) -> Duration {
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// Runs `side` for `requests` requests with `concurrency` workers; returns requests/s (calls/s for a side
/// whose `run` is a burst of calls) and per-request latencies.
func measure(_ side: Side, requests: Int, concurrency: Int) async throws -> (Double, [Duration]) {
    let clock = ContinuousClock()
    let perWorker = max(1, requests / concurrency)
    let start = clock.now
    let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var own: [Duration] = []
                own.reserveCapacity(perWorker)
                for _ in 0..<perWorker {
                    let begin = clock.now
                    try await side.run()
                    own.append(clock.now - begin)
                }
                return own
            }
        }
        var all: [Duration] = []
        for try await part in group { all.append(contentsOf: part) }
        return all
    }
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (Double(latencies.count * side.calls) / seconds, latencies)
}

/// A comparison: Parley against a baseline, alternating A B A B after a warm-up.
struct Comparison {
    let name: String
    let parley: Side
    let baseline: Side
    let requests: Int
    let concurrency: Int

    func run(rounds: Int) async throws -> (parley: Figures, baseline: Figures) {
        _ = try await measure(parley, requests: max(concurrency, requests / 5), concurrency: concurrency)
        _ = try await measure(baseline, requests: max(concurrency, requests / 5), concurrency: concurrency)
        var a = Figures()
        var b = Figures()
        for _ in 0..<rounds {
            let (ta, la) = try await measure(parley, requests: requests, concurrency: concurrency)
            a.throughputs.append(ta)
            a.latencies.append(contentsOf: la)
            let (tb, lb) = try await measure(baseline, requests: requests, concurrency: concurrency)
            b.throughputs.append(tb)
            b.latencies.append(contentsOf: lb)
        }
        return (a, b)
    }
}

extension Duration {
    /// Microseconds, for the table.
    var microseconds: String {
        let value = Double(components.seconds) * 1e6 + Double(components.attoseconds) / 1e12
        return String(format: "%.0f µs", value)
    }
}
