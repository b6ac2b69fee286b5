public import Parley

/// What a ``JSONRPCClient`` tells the peer when one of its calls is cancelled or runs out of time, so that the peer
/// stops working on it: JSON-RPC itself has no cancellation, each protocol adds its own notification.
///
/// ```swift
/// let lsp = JSONRPCClient(channel: server, cancellation: .lsp)                  // $/cancelRequest {"id": 7}
/// let mcp = JSONRPCClient(channel: tools, timeout: .seconds(30), cancellation: .mcp)
/// ```
///
/// The notification goes out once the call has failed (``/Parley/ParleyError/Kind/cancelled`` or
/// ``/Parley/ParleyError/Kind/timeout``), without delaying that failure; the peer's late answer, if any, is dropped.
///
/// On the serving side (``JSONRPCRouter/cancellations``), the same value recognises the peer's notification: the
/// handler of the request it names is cancelled, and the request is answered with ``cancelledAnswer`` (LSP's
/// `-32800 Request cancelled`) or not at all (MCP).
public struct JSONRPCCancellation: Sendable {
    /// The notification for the call `id`, failed for `reason` (words, such as "timed out after 2 seconds").
    public let notification: @Sendable (_ id: JSONRPCID, _ reason: String) -> (method: String, params: JSONValue)
    /// The method of the notification, which the serving side recognises.
    public let method: String?
    /// The id of the request a received notification of ``method`` cancels (from its parameters).
    public let cancelledID: @Sendable (_ params: JSONValue?) -> JSONValue?
    /// What a request cancelled this way is answered with; `nil` sends no answer.
    public let cancelledAnswer: JSONRPCError?

    /// The notification made by `notification` from the cancelled call's id and the reason; a router recognises
    /// none (give ``init(method:notification:cancelledID:cancelledAnswer:)`` for that).
    public init(notification: @escaping @Sendable (_ id: JSONRPCID, _ reason: String) -> (method: String, params: JSONValue)) {
        self.notification = notification
        self.method = nil
        self.cancelledID = { _ in nil }
        self.cancelledAnswer = nil
    }

    /// A cancellation both sides understand: `notification` makes it (its method must be `method`), `cancelledID`
    /// reads the cancelled request's id from a received one, and `cancelledAnswer` answers that request (`nil`: no
    /// answer).
    public init(
        method: String,
        notification: @escaping @Sendable (_ id: JSONRPCID, _ reason: String) -> JSONValue,
        cancelledID: @escaping @Sendable (_ params: JSONValue?) -> JSONValue?,
        cancelledAnswer: JSONRPCError?
    ) {
        self.notification = { id, reason in (method, notification(id, reason)) }
        self.method = method
        self.cancelledID = cancelledID
        self.cancelledAnswer = cancelledAnswer
    }

    /// The Language Server Protocol's `$/cancelRequest` with `{"id": id}`; a cancelled request is answered
    /// `-32800 Request cancelled`.
    public static let lsp = Self(
        method: "$/cancelRequest",
        notification: { id, _ in ["id": JSONValue(id)] },
        cancelledID: { $0?["id"] },
        cancelledAnswer: JSONRPCError(code: -32800, message: "Request cancelled")
    )

    /// The Model Context Protocol's `notifications/cancelled` with `{"requestId": id, "reason": reason}`; a cancelled
    /// request gets no answer, as the specification asks.
    public static let mcp = Self(
        method: "notifications/cancelled",
        notification: { id, reason in ["requestId": JSONValue(id), "reason": .string(reason)] },
        cancelledID: { $0?["requestId"] },
        cancelledAnswer: nil
    )
}

extension JSONValue {
    /// A request id as JSON: a number or a string.
    public init(_ id: JSONRPCID) {
        switch id {
        case .number(let number): self = .int(number)
        case .string(let string): self = .string(string)
        }
    }
}
