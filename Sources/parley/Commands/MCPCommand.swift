import ArgumentParser

/// `parley mcp`: a Model Context Protocol client on the command line.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Talk to a Model Context Protocol server: its tools, resources and prompts.",
        discussion: """
            TARGET is the server's Streamable HTTP URL (answers as JSON or as an SSE stream), or --stdio 'COMMAND \
            ARGS…' to start it as a child process talking newline-delimited JSON-RPC; then TARGET is left out. The \
            client speaks the 2026-07-28 protocol with a server that does, the handshake era (2025-11-25 and older) \
            with one that does not: --era pins one, -v says which was chosen. Examples:
              parley mcp tools http://127.0.0.1:8000/mcp
              parley mcp call http://127.0.0.1:8000/mcp add a:=2 b:=3
              parley mcp call --stdio 'python server.py' index --idle-timeout 10
              parley mcp call http://127.0.0.1:8000/mcp ask_name --elicit name=Ada
              parley mcp read http://127.0.0.1:8000/mcp blob://bytes -o bytes.bin
              parley mcp prompt http://127.0.0.1:8000/mcp greet name=Ada
              parley mcp complete URL --template 'greeting://{name}' name al
            A server may ask questions during a call (elicitation): on a terminal each field of its form is asked for \
            in turn (an empty line keeps the default, Ctrl-D declines), and a URL to open is shown (Enter accepts, n \
            declines). When standard input is not a terminal, the form is filled from --elicit FIELD=VALUE, and a \
            question that cannot be answered is declined, saying so on standard error. The server may also ask for \
            the roots: the working directory. Text from the server is printed with control characters escaped. The \
            exit status is 0 for success, 1 for a failure (the message is on standard error), 2 when a time limit \
            expired (the server was told to cancel), 64 for a usage error.
            """,
        subcommands: [
            MCPToolsCommand.self, MCPCallCommand.self, MCPResourcesCommand.self, MCPReadCommand.self,
            MCPTemplatesCommand.self, MCPPromptsCommand.self, MCPPromptCommand.self, MCPCompleteCommand.self,
        ]
    )
}
