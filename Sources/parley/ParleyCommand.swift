import ArgumentParser

/// The `parley` command line.
@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Typed REST and JSON-RPC calls from Swift, and a demo server to try them on.",
        discussion: """
            Try it: 'parley demo' walks through the library against its embedded demo server; 'parley demo --serve \
            --port 8080' keeps that server running, for commands such as
              parley get http://127.0.0.1:8080/users/1
              parley post http://127.0.0.1:8080/users name=Ada email=ada@example.com
              parley rpc http://127.0.0.1:8080/rpc subtract '[42, 23]'
            Run 'parley help COMMAND' for a command's options and examples.
            """,
        subcommands: [DemoCommand.self],
        groupedSubcommands: [
            CommandGroup(
                name: "HTTP requests (httpie style)",
                subcommands: [
                    GetCommand.self, HeadCommand.self, PostCommand.self, PutCommand.self, PatchCommand.self, DeleteCommand.self,
                ]
            ),
            CommandGroup(name: "Transfers", subcommands: [UploadCommand.self, DownloadCommand.self]),
            CommandGroup(name: "JSON-RPC", subcommands: [RPCCommand.self, MCPCommand.self, ServeStdioCommand.self]),
        ]
    )
}
