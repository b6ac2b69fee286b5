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

    /// Waits until `key`'s response is held back by its reader: its writer suspended on one write for at least
    /// `threshold`, or the bytes that left the process unchanged for `threshold` (the reader stopped taking them,
    /// whatever the server does with the bytes it still hands to NIO); or until `timeout` has elapsed (or the task is
    /// cancelled).
    ///
    /// A completed `writer.write` only means the bytes were handed to NIO: they may still sit in the channel's
    /// outbound buffer (while the event loop lags, a writer can hand over far more than the writability watermark
    /// before it is told to wait). So `written` is what left the process (handed minus still buffered in the
    /// channel), and `queued` what is still buffered.
    ///
    /// - Returns: the bytes written to the socket, the bytes still queued in the server, whether the reader was
    ///   seen holding the response back, and what the writer was doing then, in words.
    func waitUntilBlocked(
        _ key: String,
        threshold: Duration = .milliseconds(200),
        timeout: Duration = .seconds(5)
    ) async -> (written: Int, queued: Int, blocked: Bool, state: String) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var lastSent = -1
        var sentSince = clock.now
        while true {
            let snapshot = self.entries.withLockedValue { $0[key] } ?? Snapshot()
            // Runs on the channel's event loop after the writes already submitted to it, so it sees them.
            let queued = (try? await snapshot.channel?.getOption(.bufferedWritableBytes)) ?? 0
            let sent = snapshot.written - queued
            let now = clock.now
            if sent != lastSent {
                lastSent = sent
                sentSince = now
            }
            let pendingLong = snapshot.pendingSince.map { now - $0 >= threshold } ?? false
            let stalled = snapshot.writes > 0 && now - sentSince >= threshold
            if pendingLong || stalled || now >= deadline {
                let state =
                    "\(snapshot.writes) writes, the last completed "
                    + "\(snapshot.lastCompleted.map { "\(now - $0)" } ?? "never") ago, "
                    + (snapshot.pendingSince.map { "one pending for \(now - $0)" } ?? "none pending")
                    + ", \(sent) bytes sent, unchanged for \(now - sentSince)"
                return (sent, queued, pendingLong || stalled, state)
            }
            do {
                try await Task.sleep(until: min(now + .milliseconds(20), deadline), clock: clock)
            } catch {
                return (sent, queued, false, "the wait was cancelled")
            }
        }
    }
}
