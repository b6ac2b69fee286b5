import NIOConcurrencyHelpers
import NIOCore

/// Records, per client-chosen key, how many body bytes a streamed response has handed to its
/// connection and since when its current write has been suspended, so that a test can observe
/// TCP/NIO back-pressure stopping the server (`GET /written?key=K`).
final class WriteProbe: Sendable {
    /// What one key's response has done so far.
    struct Snapshot: Sendable {
        /// Body bytes whose writes have completed.
        var written = 0
        /// When the write in progress started, `nil` between writes.
        var pendingSince: ContinuousClock.Instant?
        /// How many writes have completed, and when the last one did.
        var writes = 0
        var lastCompleted: ContinuousClock.Instant?
        /// The connection the response goes out on.
        var channel: (any Channel)?
    }

    private let entries = NIOLockedValueBox<[String: Snapshot]>([:])

    /// Starts recording a new response for `key`, forgetting an earlier one.
    func begin(_ key: String, channel: any Channel) {
        self.entries.withLockedValue { $0[key] = Snapshot(channel: channel) }
    }

    /// Runs `write` (one body write of `bytes` bytes) and records it for `key`.
    func record(_ key: String, bytes: Int, _ write: () async throws -> Void) async throws {
        self.entries.withLockedValue { $0[key, default: Snapshot()].pendingSince = .now }
        defer { self.entries.withLockedValue { $0[key]?.pendingSince = nil } }
        try await write()
        self.entries.withLockedValue {
            $0[key, default: Snapshot()].written += bytes
            $0[key, default: Snapshot()].writes += 1
            $0[key, default: Snapshot()].lastCompleted = .now
        }
    }

    /// Waits until `key`'s response has been suspended on one write for at least `threshold`, or
    /// `timeout` has elapsed (or the task is cancelled).
    ///
    /// A completed `writer.write` only means the bytes were handed to NIO: they may still sit in the channel's
    /// outbound buffer (while the event loop lags, a writer can hand over far more than the writability watermark
    /// before it is told to wait). So `written` is what left the process (handed minus still buffered in the
    /// channel), and `queued` what is still buffered.
    ///
    /// - Returns: the bytes written to the socket, the bytes still queued in the server, and whether the writer
    ///   was seen blocked.
    func waitUntilBlocked(
        _ key: String,
        threshold: Duration = .milliseconds(200),
        timeout: Duration = .seconds(5)
    ) async -> (written: Int, queued: Int, blocked: Bool, state: String) {
        let (handed, blocked) = await self.waitUntilBlockedHanded(key, threshold: threshold, timeout: timeout)
        let snapshot = self.entries.withLockedValue { $0[key] } ?? Snapshot()
        // Runs on the channel's event loop after the writes already submitted to it, so it sees them.
        let queued = (try? await snapshot.channel?.getOption(.bufferedWritableBytes)) ?? 0
        let now = ContinuousClock.now
        // For a test's failure message: what the writer was doing when the wait ended.
        let state = "\(snapshot.writes) writes, the last completed \(snapshot.lastCompleted.map { "\(now - $0)" } ?? "never") ago, "
            + (snapshot.pendingSince.map { "one pending for \(now - $0)" } ?? "none pending")
        return (handed - queued, queued, blocked, state)
    }

    private func waitUntilBlockedHanded(
        _ key: String,
        threshold: Duration,
        timeout: Duration
    ) async -> (written: Int, blocked: Bool) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let snapshot = self.entries.withLockedValue { $0[key] } ?? Snapshot()
            let now = clock.now
            if let since = snapshot.pendingSince, now - since >= threshold {
                return (snapshot.written, true)
            }
            guard now < deadline else { return (snapshot.written, false) }
            // Sleep until the pending write would count as blocked, or briefly if none is pending.
            let wake = snapshot.pendingSince.map { $0 + threshold } ?? now + .milliseconds(20)
            do {
                try await Task.sleep(until: min(wake, deadline), clock: clock)
            } catch {
                return (snapshot.written, false)
            }
        }
    }
}
