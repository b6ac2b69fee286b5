import ArgumentParser

/// The `parley` command line.
@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Typed REST and JSON-RPC calls from Swift, and a demo server to try them on.",
        subcommands: [DemoCommand.self, RPCCommand.self, UploadCommand.self, DownloadCommand.self, ServeStdioCommand.self]
    )
}
