public import Parley

/// `logging/setLevel`: the least severe log messages the server should send (protocol 2025-11-25 and earlier;
/// 2026-07-28 asks for them in each request's `_meta`).
public struct MCPSetLogLevel: JSONRPCMethod {
    /// Nothing.
    public typealias Result = MCPEmptyResult
    /// `"logging/setLevel"`.
    public static let name = "logging/setLevel"
    /// `{level}`.
    public let params: JSONValue

    /// Messages at `level` (`"debug"`, `"info"`, `"notice"`, `"warning"`, `"error"`, `"critical"`, `"alert"` or
    /// `"emergency"`) and above.
    public init(level: String) {
        params = ["level": .string(level)]
    }
}
