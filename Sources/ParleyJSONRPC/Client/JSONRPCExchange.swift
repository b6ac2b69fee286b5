public import Parley

/// What one message to the peer holds, for a channel that treats messages by method (``JSONRPCHTTPChannel``).
public struct JSONRPCExchange: Sendable, Hashable {
    /// The methods of its calls and notifications, in order.
    public var methods: [String]
    /// The ids it waits answers for; empty when it holds only notifications.
    public var ids: [JSONRPCID]
    /// Whether every call in it may be sent again with the same effect (``JSONRPCMethod/isRepeatable``).
    public var isRepeatable: Bool
    /// Header fields a channel over HTTP sends with this message, after its own (``JSONRPCMethod/headerFields``: the
    /// MCP routing headers `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); other channels ignore them.
    public var headerFields: Headers

    /// A description.
    public init(methods: [String], ids: [JSONRPCID], isRepeatable: Bool, headerFields: Headers = [:]) {
        self.methods = methods
        self.ids = ids
        self.isRepeatable = isRepeatable
        self.headerFields = headerFields
    }

    /// The name of the operation: the method of a single message, `"METHOD batch"` for a batch of one method,
    /// `"batch"` for a mix, `"JSON-RPC POST"` when the methods are unknown. Bounded by the methods the code calls,
    /// so it suits a metrics label.
    public var operationName: String {
        guard let first = methods.first else { return "JSON-RPC POST" }
        if methods.count == 1 { return first }
        return methods.allSatisfy { $0 == first } ? "\(first) batch" : "batch"
    }
}
