/// How far an upload or a download has got.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes sent (upload) or received and written (download) so far.
    public var completedBytes: Int64
    /// The total, when known (`Content-Length`, a file's size, a multipart form's computed length).
    public var totalBytes: Int64?

    /// A progress value.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes` between 0 and 1; `nil` while the total is unknown. An empty transfer is
    /// complete (1).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    /// Whether every byte of a known total has moved.
    public var isComplete: Bool { totalBytes.map { completedBytes >= $0 } ?? false }

    /// "1048576 of 4194304 bytes (25%)", or "1048576 bytes" while the total is unknown.
    public var description: String {
        guard let totalBytes, let fraction = fractionCompleted else { return "\(completedBytes) bytes" }
        return "\(completedBytes) of \(totalBytes) bytes (\(Int((fraction * 100).rounded(.down)))%)"
    }
}

/// Delivers progress to a sequence and an optional callback; used by the transfer that owns it.
final class ProgressReporter: Sendable {
    let updates: AsyncStream<TransferProgress>
    private let continuation: AsyncStream<TransferProgress>.Continuation
    private let callback: (@Sendable (TransferProgress) -> Void)?
    private let last = LockedState<TransferProgress?>(nil)

    init(callback: (@Sendable (TransferProgress) -> Void)?) {
        // A consumer that falls behind sees the newest values, never an unbounded backlog.
        (updates, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(32))
        self.callback = callback
    }

    private let finished = LockedState(false)

    /// Reports `progress` unless it equals the last report or the transfer has finished: what a transport still
    /// takes of a body after the call has ended (a server that answered before reading all of it) is not sent.
    func report(_ progress: TransferProgress) {
        let changed = last.withLock { last -> Bool in
            guard last != progress, !isFinished else { return false }
            last = progress
            return true
        }
        guard changed else { return }
        continuation.yield(progress)
        callback?(progress)
    }

    /// Whether the transfer has ended (``finish()``).
    var isFinished: Bool { finished.withLock { $0 } }

    /// Ends the sequence; later reports are dropped.
    func finish() {
        finished.withLock { $0 = true }
        continuation.finish()
    }

    deinit { continuation.finish() }
}
