import ArgumentParser
import Parley

/// Runs an upload or a download for `parley upload` and `parley download`: its progress as a bar on standard error
/// when that is a terminal, otherwise a one-line summary at the end.
struct TransferRun: Sendable {
    /// "uploaded", "downloaded": the verb of the summary line.
    let verb: String
    /// Where progress goes; a bar only when standard error is a terminal.
    let display = ProgressDisplay(style: Terminal.isErrorTerminal ? .bar : .none, write: Terminal.writeError)

    /// Waits for `transfer` while showing its progress, which it started at `start`.
    func wait<Value: Sendable>(
        for transfer: Transfer<Value>,
        startedAt start: ContinuousClock.Instant
    ) async -> (Result<Value, ParleyError>, ProgressDisplay.Summary) {
        let display = self.display
        let shown = Task { await display.follow(transfer.progress, startedAt: start) }
        let result: Result<Value, ParleyError>
        do {
            result = .success(try await transfer.value)
        } catch {
            result = .failure(error)
        }
        // The progress sequence ends with the transfer, so this returns at once.
        return (result, await shown.value)
    }

    /// Writes the summary line when there was no bar: `uploaded 8.0 MiB (8388608 bytes) in 0.12 s, 66.7 MiB/s`.
    func summarize(_ summary: ProgressDisplay.Summary, bytes: Int64, detail: String = "") {
        if case .bar = display.style { return }
        let moved = summary.movedBytes
        Terminal.writeError(
            "\(verb) \(ByteCount.format(bytes)) (\(bytes) bytes)\(detail) in \(ByteCount.duration(summary.elapsed)), "
                + "\(ByteCount.rate(moved, in: summary.elapsed))\n"
        )
    }

    /// Writes `error` on standard error and fails the command.
    func fail(_ error: ParleyError) -> any Error {
        Terminal.writeError("parley: \(error)\n")
        return ExitCode.failure
    }
}
