/// One event of a `text/event-stream` response (Server-Sent Events), as the WHATWG HTML standard's
/// "event stream interpretation" dispatches it.
///
/// ```
/// event: price
/// id: 42
/// data: {"symbol": "YHOO",
/// data:  "change": 2}
///
/// ```
/// is the event `type` `"price"`, `data` `"{\"symbol\": \"YHOO\",\n \"change\": 2}"`, `lastEventID` `"42"`.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event` field of the event, or `"message"` when it had none.
    public var type: String
    /// The event's `data` fields joined with line feeds (without a trailing line feed).
    public var data: String
    /// The last event ID of the stream when this event was dispatched: the last `id` field seen so far,
    /// in this event or an earlier one (`""` when none, or when an empty `id` field reset it).
    public var lastEventID: String

    /// An event of `type` carrying `data`.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}
