/// When and how often ``ServerSentEventStream`` connects again after its connection ends.
///
/// After a drop (the body ended, or the connection broke) it waits the server's reconnection time (its last
/// `retry` field), or ``initialDelay`` when the server sent none, and reconnects with `Last-Event-ID`. Each
/// connection in a row that brings no event doubles the wait, up to ``maxDelay``; after ``maxAttempts`` of them
/// the stream gives up with ``ParleyError/Kind/transport``.
public struct ServerSentEventReconnectPolicy: Sendable, Hashable {
    /// The wait before reconnecting while the server has not sent `retry`. Default: 3 seconds.
    public var initialDelay: Duration
    /// The longest wait, whatever `retry` says. Default: 60 seconds.
    public var maxDelay: Duration
    /// How many connections in a row may end (or fail to open) without an event before the stream gives up;
    /// `nil` to reconnect for ever. Default: 8.
    public var maxAttempts: Int?
    /// Whether to reconnect at all.
    public var isEnabled: Bool

    /// A policy; every field has a default.
    public init(initialDelay: Duration = .seconds(3), maxDelay: Duration = .seconds(60), maxAttempts: Int? = 8) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
        self.isEnabled = true
    }

    /// Reconnect after 3 s (or the server's `retry`), giving up after 8 connections in a row without an event.
    public static let `default` = ServerSentEventReconnectPolicy()

    /// Never reconnect: the stream ends when the connection does (and throws when it breaks).
    public static var never: ServerSentEventReconnectPolicy {
        var policy = ServerSentEventReconnectPolicy()
        policy.isEnabled = false
        return policy
    }

    /// The wait before attempt `failures + 1` when the server asked for `retry`.
    func delay(retry: Duration?, failures: Int) -> Duration {
        var delay = retry ?? initialDelay
        for _ in 0..<max(0, min(failures - 1, 16)) where delay < maxDelay { delay *= 2 }
        return min(delay, maxDelay)
    }
}
