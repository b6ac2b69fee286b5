public import Parley

/// `completion/complete`: suggested values for an argument of a prompt or resource template.
///
/// ```swift
/// let completion = try await rpc.call(MCPComplete(.prompt("code_review"), argument: "language", value: "py"))
/// print(completion.values)   // ["python", "pytorch"]
/// ```
public struct MCPComplete: JSONRPCMethod {
    /// The suggestions, read from the result's `completion` member.
    public typealias Result = MCPCompletion
    /// `"completion/complete"`.
    public static let name = "completion/complete"
    /// `{ref, argument: {name, value}, context?: {arguments}}`.
    public let params: JSONValue

    /// Suggestions for the argument `argument` of `reference`, whose value so far is `value`; `context` holds the
    /// arguments already chosen (left out when empty).
    public init(
        _ reference: MCPCompletionReference,
        argument: String,
        value: String,
        context: [String: String] = [:]
    ) {
        var params: [String: JSONValue] = [
            "ref": reference.jsonValue,
            "argument": ["name": .string(argument), "value": .string(value)],
        ]
        if !context.isEmpty { params["context"] = ["arguments": .object(context.mapValues(JSONValue.string))] }
        self.params = .object(params)
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
