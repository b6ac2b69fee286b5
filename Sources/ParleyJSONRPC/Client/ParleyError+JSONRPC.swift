public import Parley

extension ParleyError.Kind {
    /// The JSON-RPC peer answered with an error object; ``/Parley/ParleyError/underlying`` is the ``JSONRPCError``
    /// (code, message, data).
    public static let jsonRPCError = Self(label: "jsonRPCError")
    /// The JSON-RPC peer's message breaks JSON-RPC 2.0: no `"jsonrpc":"2.0"`, both or neither of `result`
    /// and `error`, an id left unanswered, answered twice, or that nobody asked for.
    public static let jsonRPCProtocol = Self(label: "jsonRPCProtocol")
}
