public import Parley

/// How a call asks the peer for progress notifications, and how those notifications are recognised and read: each
/// protocol built on JSON-RPC has its own (``mcp``, ``lsp``), or give yours.
///
/// ```swift
/// let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp)
/// for await update in call.progress { print(update.fractionCompleted ?? 0, update.message ?? "") }
/// let result = try await call.value
/// ```
///
/// The token is generated for each call (a string no other call of the process has); the style puts it in the
/// call's parameters, which must be named (a JSON object) or absent.
public struct JSONRPCProgress: Sendable {
    /// The parameters of the call with `token` added; `params` is `nil` when the call has none.
    public let attach: @Sendable (_ token: JSONValue, _ params: JSONValue?) throws(ParleyError) -> JSONValue
    /// Which notifications carry the progress of the call with a given token (the matcher's key).
    public let matcher: JSONRPCSubscriptionMatcher
    /// Reads one of those notifications.
    public let update: @Sendable (_ notification: JSONRPCIncoming) -> JSONRPCProgressUpdate

    /// A style of your own.
    public init(
        attach: @escaping @Sendable (_ token: JSONValue, _ params: JSONValue?) throws(ParleyError) -> JSONValue,
        matcher: JSONRPCSubscriptionMatcher,
        update: @escaping @Sendable (_ notification: JSONRPCIncoming) -> JSONRPCProgressUpdate
    ) {
        self.attach = attach
        self.matcher = matcher
        self.update = update
    }

    /// The Model Context Protocol: the token goes in `params._meta.progressToken`; the peer sends
    /// `notifications/progress` with `{progressToken, progress, total?, message?}`.
    public static let mcp = Self(
        attach: { token, params throws(ParleyError) in
            var members = try namedParams(params, style: "MCP")
            var meta = members["_meta"]?.objectValue ?? [:]
            meta["progressToken"] = token
            members["_meta"] = .object(meta)
            return .object(members)
        },
        matcher: .parameter("progressToken", of: "notifications/progress"),
        update: { notification in
            JSONRPCProgressUpdate(
                progress: notification.params?["progress"]?.doubleValue,
                total: notification.params?["total"]?.doubleValue,
                message: notification.params?["message"]?.stringValue,
                params: notification.params
            )
        }
    )

    /// The Language Server Protocol's work done progress: the token goes in `params.workDoneToken`; the peer sends
    /// `$/progress` with `{token, value: {kind: "begin" | "report" | "end", title?, message?, percentage?}}`. A
    /// percentage reads as progress out of a total of 100; `end` as 100 of 100.
    public static let lsp = Self(
        attach: { token, params throws(ParleyError) in
            var members = try namedParams(params, style: "LSP")
            members["workDoneToken"] = token
            return .object(members)
        },
        matcher: .parameter("token", of: "$/progress"),
        update: { notification in
            let value = notification.params?["value"]
            let ended = value?["kind"]?.stringValue == "end"
            return JSONRPCProgressUpdate(
                progress: ended ? 100 : value?["percentage"]?.doubleValue,
                total: ended || value?["percentage"] != nil ? 100 : nil,
                message: value?["message"]?.stringValue ?? value?["title"]?.stringValue,
                params: notification.params
            )
        }
    )

    private static func namedParams(_ params: JSONValue?, style: String) throws(ParleyError) -> [String: JSONValue] {
        switch params {
        case nil, .null?: return [:]
        case .object(let members)?: return members
        default:
            throw ParleyError(
                .invalidRequest,
                "A call with \(style) progress needs named parameters (a JSON object) or none, to carry its progress token; "
                    + "these are positional. Nothing was sent."
            )
        }
    }
}
