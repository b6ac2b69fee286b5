public import Parley

/// `prompts/get`: a prompt's messages, its arguments filled in.
public struct MCPGetPrompt: JSONRPCMethod {
    /// The messages.
    public typealias Result = MCPPromptResult
    /// `"prompts/get"`.
    public static let name = "prompts/get"
    /// `{name, arguments?}`.
    public let params: JSONValue

    /// The prompt `name` with `arguments`; `arguments` is left out when empty.
    public init(name: String, arguments: [String: String] = [:]) {
        var params: [String: JSONValue] = ["name": .string(name)]
        if !arguments.isEmpty { params["arguments"] = .object(arguments.mapValues(JSONValue.string)) }
        self.params = .object(params)
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
