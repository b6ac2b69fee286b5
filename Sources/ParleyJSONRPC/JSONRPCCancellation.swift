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
public struct JSONRPCCancellation: Sendable {
    /// The notification for the call `id`, failed for `reason` (words, such as "timed out after 2 seconds").
    public let notification: @Sendable (_ id: JSONRPCID, _ reason: String) -> (method: String, params: JSONValue)

    /// The notification made by `notification` from the cancelled call's id and the reason.
    public init(notification: @escaping @Sendable (_ id: JSONRPCID, _ reason: String) -> (method: String, params: JSONValue)) {
        self.notification = notification
    }

    /// The Language Server Protocol's `$/cancelRequest` with `{"id": id}`.
    public static let lsp = Self { id, _ in ("$/cancelRequest", ["id": JSONValue(id)]) }

    /// The Model Context Protocol's `notifications/cancelled` with `{"requestId": id, "reason": reason}`.
    public static let mcp = Self { id, reason in
        ("notifications/cancelled", ["requestId": JSONValue(id), "reason": .string(reason)])
    }
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
