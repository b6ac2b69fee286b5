import Foundation

/// Parley against curl on one whole transfer, alternating A B A B: throughput in MiB/s per round.
struct TransferComparison {
    let name: String
    let parleyName: String
    let curlName: String
    let parley: @Sendable () async throws -> Void
    let curl: @Sendable () async throws -> Void
    /// Run after each transfer, outside its timing (removes a downloaded file).
    let afterEach: @Sendable () -> Void

    /// One transfer per side first, not counted (connections, the file in the page cache, code paths), then
    /// `rounds` timed transfers per side, alternating.
    func run(rounds: Int, size: Int) async throws -> (parley: Figures, curl: Figures) {
        _ = try await time(parley, size: size)
        _ = try await time(curl, size: size)
        var a = Figures()
        var b = Figures()
        for _ in 0..<rounds {
            let (ta, da) = try await time(parley, size: size)
            a.throughputs.append(ta)
            a.latencies.append(da)
            let (tb, db) = try await time(curl, size: size)
            b.throughputs.append(tb)
            b.latencies.append(db)
            FileHandle.standardError.write(Data("  \(name): Parley \(Int(ta)) MiB/s, curl \(Int(tb)) MiB/s\n".utf8))
        }
        return (a, b)
    }

    private func time(_ transfer: @Sendable () async throws -> Void, size: Int) async throws -> (Double, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        try await transfer()
        let elapsed = clock.now - start
        afterEach()
        return (Double(size) / 1_048_576 / elapsed.seconds, elapsed)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Milliseconds, for the table's transfer rows.
    var milliseconds: String { String(format: "%.0f ms", seconds * 1_000) }
}

/// Sizes as the table writes them: `1 GiB`, `256 MiB`.
func sizeLabel(_ bytes: Int) -> String {
    bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
}
