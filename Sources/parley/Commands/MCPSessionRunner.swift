import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCStdio

/// A connection to the server for one command: opened, connected (the era detected or pinned), used, closed.
struct MCPSessionRunner {
    let options: MCPTargetOptions
    let url: String?
    /// Whether `--timeout` and `--idle-timeout` bound only the tool call (`parley mcp call`), not every call.
    var callTimeout = false

    /// Opens the connection, connects, runs `body`, closes; maps failures to the exit statuses (1, 2 for a timeout).
    func run(_ body: (MCPClient) async throws -> Int32) async throws {
        var status: Int32 = 0
        var child: JSONRPCStreamChannel?
        var http: MCPStreamableHTTPChannel?
        var httpClient: Client?
        do {
            let channel: any JSONRPCChannel
            if let command = options.command {
                let launched = try JSONRPCStreamChannel.launch(
                    executable: URL(fileURLWithPath: "/bin/sh"),
                    arguments: ["-c", "exec \(command)"],
                    framing: .newlineDelimited,
                    router: Self.router
                )
                child = launched
                channel = launched
            } else {
                guard let url, let endpoint = URL(string: url), let scheme = endpoint.scheme?.lowercased(),
                    scheme == "http" || scheme == "https"
                else {
                    throw ValidationError("The target must be an http:// or https:// URL, or --stdio 'COMMAND ARGS…'.")
                }
                let client = Client(baseURL: endpoint, transport: try options.connection.transport())
                httpClient = client
                let streamable = MCPStreamableHTTPChannel(client: client, headers: try options.headers(), router: Self.router)
                http = streamable
                channel = streamable
            }
            let mcp = MCPClient(
                channel: channel,
                timeout: callTimeout ? nil : options.callLimit,
                configuration: try configuration()
            )
            do {
                let server = try await connect(mcp)
                if options.verbose { Terminal.writeError("parley: \(Self.describe(server))\n") }
                status = try await body(mcp)
            } catch let error as ParleyError {
                MCPOutput.report("\(error)")
                status = error.kind == .timeout ? 2 : 1
            }
            // The server hears of a call that timed out before this process goes.
            await mcp.rpc.waitForCancellationNotices()
        } catch let error as ParleyError {
            MCPOutput.report("\(error)")
            status = 1
        }
        await http?.close()
        try? await httpClient?.shutdown()
        if let child { _ = await child.shutdown(gracePeriod: .seconds(2)) }
        if status != 0 { throw ExitCode(status) }
    }

    /// The client's configuration: the era of `--era`, the handlers of the server's questions (elicitation, roots).
    private func configuration() throws -> MCPClient.Configuration {
        var configuration = MCPClient.Configuration()
        configuration.era = try options.pinnedEra()
        let elicitor = MCPElicitor(answers: try options.elicitAnswers(), interactive: MCPElicitor.isInputTerminal)
        configuration.handlers.elicitation = { request in await elicitor.answer(request) }
        configuration.handlers.roots = {
            let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            return [MCPRoot(uri: directory.absoluteString, name: directory.lastPathComponent)]
        }
        return configuration
    }

    /// Connects: `server/discover` or `initialize` (the era detected, or the one of `--era`). A server that answers
    /// neither must not hang the command: 30 s at least, more when the limits allow more.
    private func connect(_ mcp: MCPClient) async throws -> MCPServerDescription {
        let limit = max(options.callLimit ?? .seconds(30), .seconds(30))
        return try await Deadline.run(
            within: limit,
            expired: {
                ParleyError(
                    .timeout,
                    "The MCP server did not answer server/discover or initialize within \(MCPOutput.seconds(limit)) seconds; "
                        + "is TARGET an MCP server?"
                )
            },
            { try await mcp.connect() }
        )
    }

    /// `MCP 2026-07-28 (stateless era) with NAME VERSION`, for `--verbose`.
    static func describe(_ server: MCPServerDescription) -> String {
        let era = server.era.isStateless ? "stateless" : "handshake"
        var line = "MCP protocol \(PrintableText.escaping(server.era.protocolVersion)) (\(era) era)"
        if let info = server.serverInfo {
            let name = PrintableText.escaping(String(info.name.prefix(128)))
            line += " with \(name) \(PrintableText.escaping(String(info.version.prefix(64))))"
        }
        return line
    }

    /// Answers the server's `ping` on the connection; its other requests are answered by the client's handlers.
    static var router: JSONRPCRouter {
        var router = JSONRPCRouter()
        router.register("ping") { () in [:] as JSONValue }
        return router
    }
}
