import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// The process's CPU time (user and system, every thread) per call, one figure per round.
    var cpuPerCall: [Duration] = []

    var medianThroughput: Double { median(throughputs) }

    /// The median CPU time per call over the rounds.
    var medianCPU: Duration { cpuPerCall.sorted()[cpuPerCall.count / 2] }

    func percentile(_ p: Double) -> Duration {
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// The median of `values` (the upper one of an even count).
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// The CPU time this process has used so far, every thread, user and system (what `perf stat` counts as task-clock
/// for a process pinned to one core, as scripts/bench pins the client).
func processCPUTime() -> Duration {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
    return duration(usage.ru_utime) + duration(usage.ru_stime)
}

/// One run of ``measure(_:requests:concurrency:)``.
struct Measured {
    /// Calls per second.
    let throughput: Double
    let latencies: [Duration]
    /// The process's CPU time per call.
    let cpuPerCall: Duration
}

/// Runs `side` for `requests` requests with `concurrency` workers; returns requests/s (calls/s for a side
/// whose `run` is a burst of calls), per-request latencies and the CPU time per call.
func measure(_ side: Side, requests: Int, concurrency: Int) async throws -> Measured {
    let clock = ContinuousClock()
    let perWorker = max(1, requests / concurrency)
    let cpuStart = processCPUTime()
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
    let cpu = processCPUTime() - cpuStart
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let calls = latencies.count * side.calls
    return Measured(throughput: Double(calls) / seconds, latencies: latencies, cpuPerCall: cpu / calls)
}

/// A comparison: Parley against a baseline, alternating A B A B after a warm-up.
struct Comparison {
    let name: String
    let parley: Side
    let baseline: Side
    let requests: Int
    let concurrency: Int

    /// The figures of both sides, and the ratio of each round (Parley's throughput over the baseline's of the same
    /// round: the two ran back to back, so a drift of the machine hits both alike).
    func run(rounds: Int) async throws -> (parley: Figures, baseline: Figures, ratios: [Double]) {
        _ = try await measure(parley, requests: max(concurrency, requests / 5), concurrency: concurrency)
        _ = try await measure(baseline, requests: max(concurrency, requests / 5), concurrency: concurrency)
        var a = Figures()
        var b = Figures()
        var ratios: [Double] = []
        for round in 0..<rounds {
            // Which side goes first alternates too: neither always runs on a machine the other has just warmed.
            let order = round.isMultiple(of: 2) ? [true, false] : [false, true]
            for isParley in order {
                let measured = try await measure(isParley ? parley : baseline, requests: requests, concurrency: concurrency)
                if isParley {
                    a.add(measured)
                } else {
                    b.add(measured)
                }
            }
            ratios.append(a.throughputs[round] / b.throughputs[round])
        }
        return (a, b, ratios)
    }
}

extension Figures {
    mutating func add(_ measured: Measured) {
        throughputs.append(measured.throughput)
        latencies.append(contentsOf: measured.latencies)
        cpuPerCall.append(measured.cpuPerCall)
    }
}

/// How far to trust a ratio: the middle half of the per-round ratios (25th to 75th percentile) around their median.
struct RatioSpread {
    let median: Double
    let low: Double
    let high: Double

    init(_ ratios: [Double]) {
        let sorted = ratios.sorted()
        median = sorted[sorted.count / 2]
        low = sorted[sorted.count / 4]
        high = sorted[min(sorted.count - 1, sorted.count * 3 / 4)]
    }

    /// `0.862 (0.851–0.874)`.
    var text: String { String(format: "%.3f (%.3f–%.3f)", median, low, high) }
}

extension Duration {
    /// Microseconds, for the table.
    var microseconds: String {
        let value = Double(components.seconds) * 1e6 + Double(components.attoseconds) / 1e12
        return String(format: "%.0f µs", value)
    }
}
