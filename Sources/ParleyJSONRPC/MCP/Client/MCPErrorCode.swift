public import Parley

/// The error codes the MCP specification gives the JSON-RPC error objects of its own failures, read from a
/// ``/Parley/ParleyError`` with ``Parley/ParleyError/mcpErrorCode``.
///
/// ```swift
/// do {
///     _ = try await mcp.callTool("add", arguments: ["a": 1, "b": 2])
/// } catch where error.mcpErrorCode == .unsupportedProtocolVersion {
///     print(error.mcpSupportedVersions ?? [])
/// }
/// ```
public struct MCPErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code.
    public var rawValue: Int

    /// A code.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `-32020`: the HTTP headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) do not match the body, or are missing
    /// (2026-07-28).
    public static let headerMismatch = MCPErrorCode(rawValue: -32020)
    /// `-32021`: the server needs a client capability the request did not declare (2026-07-28).
    public static let missingRequiredClientCapability = MCPErrorCode(rawValue: -32021)
    /// `-32022`: the server does not speak the request's protocol version; its data lists the versions it does
    /// (2026-07-28).
    public static let unsupportedProtocolVersion = MCPErrorCode(rawValue: -32022)
    /// `-32042`: the server needs a URL-mode elicitation first (2025-11-25).
    public static let urlElicitationRequired = MCPErrorCode(rawValue: -32042)
    /// `-32002`: the resource does not exist (2025-11-25 and older).
    public static let resourceNotFound = MCPErrorCode(rawValue: -32002)

    /// The codes this type names.
    static let known: [MCPErrorCode: String] = [
        .headerMismatch: "the request's MCP headers do not match its body",
        .missingRequiredClientCapability: "the server needs a client capability this request did not declare",
        .unsupportedProtocolVersion: "the server does not speak this protocol version",
        .urlElicitationRequired: "the server needs a URL-mode elicitation first",
        .resourceNotFound: "the resource does not exist",
    ]

    /// The code and its meaning, such as `-32022 (the server does not speak this protocol version)`.
    public var description: String {
        Self.known[self].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }

    /// `error` with the meaning of its MCP code said first in its message, when it has one.
    static func explained(_ error: ParleyError) -> ParleyError {
        guard let code = error.mcpErrorCode, let meaning = known[code] else { return error }
        var explained = error
        explained.message = "MCP error \(code.rawValue): \(meaning). " + error.message
        if code == .unsupportedProtocolVersion, let supported = error.mcpSupportedVersions {
            explained.message +=
                " It speaks \(supported.prefix(8).map { PrintableText.escaping(String($0.prefix(32))) }.joined(separator: ", "))."
        }
        return explained
    }
}

extension ParleyError {
    /// The MCP code of the JSON-RPC error object the server answered with, when it is one the specification names.
    public var mcpErrorCode: MCPErrorCode? {
        guard kind == .jsonRPCError, let code = jsonRPCError?.code else { return nil }
        let named = MCPErrorCode(rawValue: code)
        return MCPErrorCode.known[named] == nil ? nil : named
    }

    /// The protocol versions the server lists in an `unsupportedProtocolVersion` (`-32022`) error's `data.supported`.
    public var mcpSupportedVersions: [String]? {
        guard mcpErrorCode == .unsupportedProtocolVersion, case .array(let values)? = jsonRPCError?.data?["supported"] else {
            return nil
        }
        return values.prefix(64).compactMap(\.stringValue)
    }
}

/// An event stream of the stateless era ended or broke before its call's answer: it cannot resume (there is no
/// session), so a call safe to repeat is sent again with a new id, and any other fails.
struct MCPStreamBroke: Error {
    /// Whether `error` is (or wraps) this.
    static func caused(_ error: ParleyError) -> Bool {
        error.underlying is MCPStreamBroke
    }
}
