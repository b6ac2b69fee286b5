import ArgumentParser
import Foundation
import Parley
import ParleyJSONRPC

/// `parley mcp prompts TARGET`.
struct MCPPromptsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompts",
        abstract: "List the server's prompts: name, description and arguments (optional ones with ?), one per line."
    )

    @Argument(help: ArgumentHelp("The server's URL (left out with --stdio).", valueName: "target"))
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    func validate() throws {
        try target.require(words, 0, 0, naming: "")
    }

    func run() async throws {
        try await MCPSessionRunner(options: target, url: target.split(words).url).run { mcp in
            for prompt in try await mcp.listPrompts() {
                let arguments = prompt.arguments.map { $0.name + ($0.required ? "" : "?") }.joined(separator: " ")
                print(MCPOutput.line(prompt.name, prompt.description ?? prompt.title, arguments))
            }
            return 0
        }
    }
}

/// `parley mcp prompt TARGET NAME [key=value …]`.
struct MCPPromptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompt",
        abstract: "Get a prompt with its arguments filled in, and print its messages.",
        discussion: """
            Arguments are key=value (prompt arguments are strings). On a terminal each message prints as \
            'role: text'; otherwise the result prints as JSON: {"description": …, "messages": [{"role": …, \
            "content": {…}}]}.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The server's URL (left out with --stdio), the prompt's name, then its arguments: key=value.",
            valueName: "target name arguments"
        )
    )
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    func validate() throws {
        try target.require(words, 1, naming: "the prompt's name")
        _ = try arguments()
    }

    func arguments() throws -> [String: String] {
        var arguments: [String: String] = [:]
        for item in target.split(words).rest.dropFirst() {
            guard let equals = item.firstIndex(of: "="), equals > item.startIndex else {
                throw ValidationError("'\(item)' is not key=value.")
            }
            arguments[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        return arguments
    }

    func run() async throws {
        let name = target.split(words).rest.first ?? ""
        let arguments = try arguments()
        try await MCPSessionRunner(options: target, url: target.split(words).url).run { mcp in
            let result = try await mcp.getPrompt(name, arguments: arguments)
            guard Terminal.isOutputTerminal else {
                var json: [String: JSONValue] = [
                    "messages": .array(result.messages.map { ["role": .string($0.role), "content": $0.content] })
                ]
                if let description = result.description { json["description"] = .string(description) }
                print(MCPOutput.json(.object(json)))
                return 0
            }
            if let description = result.description { print(MCPOutput.field(description)) }
            for message in result.messages {
                let body = message.text.map(MCPOutput.text) ?? MCPOutput.json(message.content, pretty: false)
                print("\(MCPOutput.field(message.role)): \(body)")
            }
            return 0
        }
    }
}

/// `parley mcp complete TARGET (--prompt NAME | --template URI) ARGUMENT [VALUE]`.
struct MCPCompleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: "Ask the server for the values an argument of a prompt or resource template can take, one per line.",
        discussion: """
            VALUE is what is typed so far (empty when left out). When the server has more values than it sent, \
            standard error says so.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The server's URL (left out with --stdio), the argument's name, then the value typed so far.",
            valueName: "target argument value"
        )
    )
    var words: [String] = []

    @Option(help: ArgumentHelp("Complete an argument of this prompt.", valueName: "name"))
    var prompt: String?

    @Option(help: ArgumentHelp("Complete a variable of this resource template.", valueName: "uri-template"))
    var template: String?

    @Option(
        name: .customLong("context"),
        help: ArgumentHelp(
            "An argument already chosen, which the server may take into account (repeatable).",
            valueName: "key=value"
        )
    )
    var contextItems: [String] = []

    @OptionGroup var target: MCPTargetOptions

    func validate() throws {
        if (prompt == nil) == (template == nil) { throw ValidationError("Give either --prompt NAME or --template URI.") }
        try target.require(words, 1, 2, naming: "the argument's name and the value typed so far")
        _ = try context()
    }

    func context() throws -> [String: String] {
        var context: [String: String] = [:]
        for item in contextItems {
            guard let equals = item.firstIndex(of: "="), equals > item.startIndex else {
                throw ValidationError("--context takes key=value; '\(item)' is not.")
            }
            context[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        return context
    }

    func run() async throws {
        let rest = target.split(words).rest
        let argument = rest.first ?? ""
        let value = rest.dropFirst().first ?? ""
        let reference: MCPCompletionReference = prompt.map { .prompt($0) } ?? .resourceTemplate(template ?? "")
        let context = try context()
        try await MCPSessionRunner(options: target, url: target.split(words).url).run { mcp in
            let completion = try await mcp.complete(reference, argument: argument, value: value, context: context)
            for suggestion in completion.values { print(MCPOutput.field(suggestion)) }
            if completion.hasMore || (completion.total ?? 0) > completion.values.count {
                let total = completion.total.map { " of \($0)" } ?? ""
                MCPOutput.report("the server sent \(completion.values.count) values\(total); it has more.")
            }
            return 0
        }
    }
}
