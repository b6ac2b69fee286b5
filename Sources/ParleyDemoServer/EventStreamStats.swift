import NIOConcurrencyHelpers

/// Counts `GET /sse` connections per client-chosen `key`, with the `Last-Event-ID` each carried,
/// so a test can check how often its client reconnected and from where (`GET /sse/stats?key=K`).
final class EventStreamStats: Sendable {
    /// What the requests with one key looked like.
    struct Entry: Encodable, Sendable {
        /// Number of `/sse` requests with this key.
        var connections = 0
        /// Their `Last-Event-ID` header values in order, `""` for a request without one.
        var lastEventIDs: [String] = []
    }

    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    /// Records a request with `key` and `lastEventID` (nil: header absent).
    func record(key: String, lastEventID: String?) {
        self.entries.withLockedValue { entries in
            entries[key, default: Entry()].connections += 1
            entries[key, default: Entry()].lastEventIDs.append(lastEventID ?? "")
        }
    }

    /// The requests recorded for `key` so far.
    func entry(for key: String) -> Entry {
        self.entries.withLockedValue { $0[key] } ?? Entry()
    }
}
