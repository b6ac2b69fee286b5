import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCStdio

/// `parley mcp`: a Model Context Protocol client on the command line.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Talk to a Model Context Protocol server: list its tools, call one.",
        discussion: """
            TARGET is the server's Streamable HTTP URL (answers as JSON or as an SSE stream), or --stdio 'COMMAND \
            ARGS…' to start it as a child process talking newline-delimited JSON-RPC. Examples:
              parley mcp tools http://127.0.0.1:8000/mcp
              parley mcp call http://127.0.0.1:8000/mcp add a:=2 b:=3
              parley mcp call --stdio 'python server.py' search query=parley --progress --timeout 30
            """,
        subcommands: [MCPToolsCommand.self, MCPCallCommand.self]
    )
}

/// Where the server is: a URL, or a command to start.
struct MCPTargetOptions: ParsableArguments {
    @Option(name: .customLong("stdio"), help: "Start the server as a child process: 'COMMAND ARGS…' (run by /bin/sh).")
    var command: String?

    @Option(
        help: "Seconds each call may take; when it expires the server is told (notifications/cancelled) and the exit status is 2."
    )
    var timeout: Double?

    @OptionGroup var connection: ConnectionOptions

    func validateTimeout() throws {
        if let timeout, !(timeout > 0 && timeout.isFinite) {
            throw ValidationError("--timeout must be a positive number of seconds.")
        }
        if command != nil, connection.isGiven {
            throw ValidationError("--verify, --cert, --pinned-pubkey and --proxy apply to a server's URL, not to --stdio.")
        }
    }

    var duration: Duration? { timeout.map { .milliseconds(Int64(($0 * 1000).rounded(.up))) } }
}

/// A session with the server for one command: opened, used, closed.
struct MCPSessionRunner {
    let options: MCPTargetOptions
    let url: String?
    /// Whether `--timeout` bounds only the tool call (`parley mcp call`), not every call of the session.
    var callTimeout = false

    /// Opens the session, runs `body`, closes it; maps failures to the exit statuses.
    func run(_ body: (MCPClient) async throws -> Int32) async throws {
        var status: Int32 = 0
        var child: JSONRPCStreamChannel?
        var http: MCPStreamableHTTPChannel?
        var httpClient: Client?
        let mcp: MCPClient
        do {
            if let command = options.command {
                let channel = try JSONRPCStreamChannel.launch(
                    executable: URL(fileURLWithPath: "/bin/sh"),
                    arguments: ["-c", "exec \(command)"],
                    framing: .newlineDelimited,
                    router: Self.router
                )
                child = channel
                mcp = MCPClient(channel: channel, timeout: callTimeout ? nil : options.duration)
            } else {
                guard let url, let endpoint = URL(string: url), let scheme = endpoint.scheme?.lowercased(),
                    scheme == "http" || scheme == "https"
                else {
                    throw ValidationError("The target must be an http:// or https:// URL, or --stdio 'COMMAND ARGS…'.")
                }
                let client = Client(baseURL: endpoint, transport: try options.connection.transport())
                httpClient = client
                let channel = MCPStreamableHTTPChannel(client: client, router: Self.router)
                http = channel
                mcp = MCPClient(channel: channel, timeout: callTimeout ? nil : options.duration)
            }
            do {
                // A server that never answers initialize must not hang the command: 30 s at least.
                let initializeLimit = max(options.duration ?? .seconds(30), .seconds(30))
                try await mcp.initialize(capabilities: ["roots": ["listChanged": false]], timeout: initializeLimit)
                status = try await body(mcp)
            } catch let error as ParleyError {
                FileHandle.standardError.write(Data("parley: \(error)\n".utf8))
                status = error.kind == .timeout ? 2 : 1
            }
            // The server hears of a call that timed out before this process goes.
            await mcp.rpc.waitForCancellationNotices()
        } catch let error as ParleyError {
            FileHandle.standardError.write(Data("parley: \(error)\n".utf8))
            status = 1
        }
        await http?.close()
        try? await httpClient?.shutdown()
        if let child { _ = await child.shutdown(gracePeriod: .seconds(2)) }
        if status != 0 { throw ExitCode(status) }
    }

    /// Answers the server's requests: `ping`, and `roots/list` with the working directory.
    static var router: JSONRPCRouter {
        var router = JSONRPCRouter()
        router.register("ping") { () in [:] as JSONValue }
        router.register("roots/list") { () in
            let directory = FileManager.default.currentDirectoryPath
            return [
                "roots": [
                    [
                        "uri": .string(URL(fileURLWithPath: directory).absoluteString),
                        "name": .string(URL(fileURLWithPath: directory).lastPathComponent),
                    ]
                ]
            ] as JSONValue
        }
        return router
    }
}

/// `parley mcp tools TARGET`.
struct MCPToolsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tools",
        abstract: "List the server's tools: name and description, one per line."
    )

    @Argument(help: "The server's URL (omit with --stdio).")
    var url: String?

    @OptionGroup var target: MCPTargetOptions

    func validate() throws {
        try target.validateTimeout()
        if (url == nil) == (target.command == nil) { throw ValidationError("Give either a URL or --stdio 'COMMAND ARGS…'.") }
    }

    func run() async throws {
        try await MCPSessionRunner(options: target, url: url).run { mcp in
            for tool in try await mcp.listTools() {
                let description = (tool.description ?? tool.title ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
                let name = PrintableText.escaping(tool.name)
                print(description.isEmpty ? name : "\(name)\t\(PrintableText.escaping(description))")
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
            expired (the server was sent notifications/cancelled).
            """
    )

    @Argument(help: "The server's URL (omit with --stdio), the tool's name, then its arguments.")
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    @Flag(help: "Print each progress notification on standard error as it arrives.")
    var progress = false

    func validate() throws {
        try target.validateTimeout()
        let needed = target.command == nil ? 2 : 1
        if words.count < needed {
            throw ValidationError(target.command == nil ? "Give the server's URL and the tool's name." : "Give the tool's name.")
        }
        _ = try arguments()
    }

    private var url: String? { target.command == nil ? words.first : nil }
    private var rest: ArraySlice<String> { words.dropFirst(target.command == nil ? 1 : 0) }

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
        let timeout = target.duration
        try await MCPSessionRunner(options: target, url: url, callTimeout: true).run { mcp in
            let call = mcp.callTool(tool, arguments: arguments, timeout: timeout, progress: .mcp)
            let printer = Task {
                for await update in call.progress where showProgress {
                    var line = "progress: \(Self.number(update.progress))"
                    if let total = update.total { line += "/\(Self.number(total))" }
                    if let message = update.message { line += " \(message)" }
                    FileHandle.standardError.write(Data((PrintableText.escaping(line) + "\n").utf8))
                }
            }
            let result: MCPToolResult
            do {
                result = try await call.value
            } catch {
                await printer.value
                throw error
            }
            await printer.value
            if result.isError {
                let text = result.text
                FileHandle.standardError.write(
                    Data("parley: the tool \(tool) failed\(text.isEmpty ? "" : ": \(PrintableText.escaping(text))")\n".utf8)
                )
                return 1
            }
            if let structured = result.structuredContent {
                print(RPCCommand.render(structured))
            } else {
                print(result.text)
            }
            return 0
        }
    }

    private static func number(_ value: Double?) -> String {
        guard let value else { return "?" }
        return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
