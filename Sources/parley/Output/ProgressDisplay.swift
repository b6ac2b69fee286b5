import Parley

/// Shows a transfer's progress as it happens: a bar redrawn in place on a terminal, a line at each quarter for a
/// readable log, or nothing.
///
/// ```
/// [#########-----------]  45%  460.8 MiB / 1.0 GiB  112.3 MiB/s
/// ```
struct ProgressDisplay: Sendable {
    /// How progress is shown.
    enum Style: Sendable {
        /// A bar redrawn in place with `\r`, at most ten times a second, ended with a newline.
        case bar
        /// `label: 25%`, `label: 50%`, … one line per quarter reached.
        case quarters(label: String)
        /// Nothing while the transfer runs.
        case none
    }

    /// What the transfer did, for a summary line.
    struct Summary: Sendable {
        /// The last progress seen (`nil` when none arrived).
        var last: TransferProgress?
        /// The bytes already there when the first progress arrived (a resumed download), not counted in the rate.
        var startBytes: Int64 = 0
        /// From the start of the transfer to the end of its progress.
        var elapsed: Duration = .zero

        /// The bytes this transfer moved.
        var movedBytes: Int64 { (last?.completedBytes ?? startBytes) - startBytes }
    }

    let style: Style
    /// Writes text as is (no newline added); must not buffer, so that `\r` redraws show at once.
    let write: @Sendable (String) -> Void
    /// Text before the bar or each line, such as an indent.
    var prefix = ""
    /// The least time between two redraws of the bar.
    var interval: Duration = .milliseconds(100)

    /// Shows `updates` until they end (when the transfer does), then ends the bar's line.
    func follow(_ updates: AsyncStream<TransferProgress>, startedAt start: ContinuousClock.Instant) async -> Summary {
        let clock = ContinuousClock()
        var summary = Summary()
        var lastDraw: ContinuousClock.Instant?
        var drawn: TransferProgress?
        var quartersShown = 0
        for await progress in updates {
            if summary.last == nil { summary.startBytes = progress.completedBytes }
            summary.last = progress
            switch style {
            case .bar:
                let now = clock.now
                // Always draw the first and the last update; in between, at most one per interval.
                if let lastDraw, now - lastDraw < interval, !progress.isComplete { continue }
                lastDraw = now
                drawn = progress
                write("\r" + prefix + Self.bar(progress, startBytes: summary.startBytes, elapsed: now - start) + "\u{1B}[K")
            case .quarters(let label):
                guard let fraction = progress.fractionCompleted else { continue }
                let quarters = Int((fraction * 4).rounded(.down))
                while quartersShown < quarters {
                    quartersShown += 1
                    write("\(prefix)\(label): \(quartersShown * 25)%\n")
                }
            case .none:
                continue
            }
        }
        summary.elapsed = clock.now - start
        if case .bar = style, let last = summary.last {
            if drawn != last {
                write("\r" + prefix + Self.bar(last, startBytes: summary.startBytes, elapsed: summary.elapsed) + "\u{1B}[K")
            }
            write("\n")
        }
        return summary
    }

    /// One line of the bar: `[#####---------------]  25%  2.0 MiB / 8.0 MiB  41.3 MiB/s`, or without the bar and the
    /// percentage while the total is unknown.
    static func bar(_ progress: TransferProgress, startBytes: Int64 = 0, elapsed: Duration, width: Int = 20) -> String {
        let rate = ByteCount.rate(progress.completedBytes - startBytes, in: elapsed)
        let done = ByteCount.format(progress.completedBytes)
        guard let fraction = progress.fractionCompleted, let total = progress.totalBytes else {
            return "\(done)  \(rate)"
        }
        let filled = min(width, Int((fraction * Double(width)).rounded(.down)))
        let percent = Int((fraction * 100).rounded(.down))
        let padding = String(repeating: " ", count: max(0, 3 - String(percent).count))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "[\(bar)] \(padding)\(percent)%  \(done) / \(ByteCount.format(total))  \(rate)"
    }
}
