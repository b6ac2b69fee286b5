public import Parley

/// A request or notification the peer sent to us.
public struct JSONRPCIncoming: Sendable {
    /// The method name.
    public let method: String
    /// The parameters, if any.
    public let params: JSONValue?
    /// The id, for a request; `nil` for a notification.
    public let id: JSONValue?
    /// A gap marker, not a message: notifications may have been missed between the element before this one and the
    /// next. The subscription was issued again after the connection dropped (one without a backfill hook reports the
    /// gap this way), or more notifications of its method arrived before its key than could be held for it. Its
    /// `method` is the subscription's, its `params` `nil`.
    public let isGap: Bool
    /// The size of the message it came in (0 when Parley did not read it from the peer): what it weighs in the unread
    /// budgets.
    package var byteCount = 0

    /// A message (for a backfill hook, which hands back the notifications a subscription missed).
    public init(method: String, params: JSONValue?, id: JSONValue? = nil) {
        self.init(method: method, params: params, id: id, isGap: false)
    }

    init(method: String, params: JSONValue?, id: JSONValue?, isGap: Bool) {
        self.method = method
        self.params = params
        self.id = id
        self.isGap = isGap
    }

    /// The gap marker of a subscription to `method`.
    package static func gap(_ method: String) -> Self {
        Self(method: method, params: nil, id: nil, isGap: true)
    }
}
