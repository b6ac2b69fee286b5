import ArgumentParser
import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCStdio

/// `parley serve-stdio`: the demo server's JSON-RPC methods over standard input and output, for an editor, an
/// MCP client or any program that starts it as a child process.
struct ServeStdioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-stdio",
        abstract: "Serve the demo JSON-RPC 2.0 methods over standard input and output until the input ends.",
        discussion: """
            Reads JSON-RPC messages from standard input and writes the answers to standard output, framed with
            Content-Length headers (as language servers frame them) or one message per line (as MCP's stdio
            transport does). Only answers are written to standard output; logs go to standard error. The methods
            are those of the demo server's POST /rpc: subtract, sum, get_data, update, notify_hello, notify_sum,
            echo, fail. Example:
              echo '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}' | parley serve-stdio --framing newline
            """
    )

    /// The framings, as spelled on the command line.
    enum Framing: String, ExpressibleByArgument, CaseIterable {
        case contentLength = "content-length"
        case newline

        var framing: JSONRPCFraming {
            switch self {
            case .contentLength: .contentLength
            case .newline: .newlineDelimited
            }
        }
    }

    @Option(help: "How messages are delimited: content-length (LSP) or newline (MCP).")
    var framing: Framing = .contentLength

    func run() async throws {
        let router = DemoServer.jsonRPCRouter()
        log("serving \(router.methods.joined(separator: ", ")) on standard input and output (\(framing.rawValue) framing)")
        do {
            try await router.serve(input: .standardInput, output: .standardOutput, framing: framing.framing)
        } catch {
            log("\(error)")
            throw ExitCode.failure
        }
        log("standard input ended; every answer is written")
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data("parley serve-stdio: \(line)\n".utf8))
    }
}
