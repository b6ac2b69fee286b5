import ArgumentParser
import Foundation
import Parley
import ParleyJSONRPC

/// `parley mcp tools TARGET`.
struct MCPToolsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tools",
        abstract: "List the server's tools: name and description, one per line."
    )

    @Argument(help: ArgumentHelp("The server's URL (left out with --stdio).", valueName: "target"))
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    func validate() throws {
        try target.require(words, 0, 0, naming: "")
    }

    func run() async throws {
        try await MCPSessionRunner(options: target, url: target.split(words).url).run { mcp in
            for tool in try await mcp.listTools() {
                print(MCPOutput.line(tool.name, tool.description ?? tool.title))
            }
            return 0
        }
    }
}

/// `parley mcp call TARGET TOOL [key=value | key:=json …]`.
struct MCPCallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call a tool and print its structured content (else its text).",
        discussion: """
            Arguments are key=value (a string) or key:=json (any JSON value). The exit status is 0 for a result, \
            1 when the result has isError or the call fails (the message is on standard error), 2 when --timeout \
            or --idle-timeout expired (the server was told to cancel the call).
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The server's URL (left out with --stdio), the tool's name, then its arguments: key=value or key:=json.",
            valueName: "target tool arguments"
        )
    )
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    @Flag(help: "Print each progress notification on standard error as it arrives.")
    var progress = false

    func validate() throws {
        try target.require(words, 1, naming: "the tool's name")
        _ = try arguments()
    }

    private var rest: ArraySlice<String> { target.split(words).rest }

    func arguments() throws -> [String: JSONValue] {
        var arguments: [String: JSONValue] = [:]
        for item in rest.dropFirst() {
            guard let equals = item.firstIndex(of: "=") else {
                throw ValidationError("'\(item)' is not key=value or key:=json.")
            }
            if equals > item.startIndex, item[item.index(before: equals)] == ":" {
                let key = String(item[..<item.index(before: equals)])
                let json = item[item.index(after: equals)...]
                guard !key.isEmpty, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else {
                    throw ValidationError("'\(item)': the value after := is not JSON.")
                }
                arguments[key] = value
            } else {
                let key = String(item[..<equals])
                guard !key.isEmpty else { throw ValidationError("'\(item)' has no key before =.") }
                arguments[key] = .string(String(item[item.index(after: equals)...]))
            }
        }
        return arguments
    }

    func run() async throws {
        let tool = rest.first ?? ""
        let arguments = try arguments()
        let showProgress = progress
        let limits = JSONRPCCallLimits(total: target.total, idle: target.idle)
        try await MCPSessionRunner(options: target, url: target.split(words).url, callTimeout: true).run { mcp in
            let call = mcp.callTool(tool, arguments: arguments, limits: limits, progress: .mcp)
            // The updates are printed beside the call, as a child of this task (they end when the call does).
            async let printed: Void = {
                for await update in call.progress where showProgress {
                    Terminal.writeError(PrintableText.escaping(RPCCommand.describe(update)) + "\n")
                }
            }()
            let result: MCPToolResult
            do {
                result = try await call.value
            } catch {
                await printed
                throw error
            }
            await printed
            if result.isError {
                let text = result.text
                MCPOutput.report(
                    "the tool \(MCPOutput.field(tool)) failed\(text.isEmpty ? "" : ": \(PrintableText.escaping(text))")"
                )
                return 1
            }
            if let structured = result.structuredContent {
                print(MCPOutput.json(structured))
            } else {
                print(MCPOutput.text(result.text))
            }
            return 0
        }
    }
}
