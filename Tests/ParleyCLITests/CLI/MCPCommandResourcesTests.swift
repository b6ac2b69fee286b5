import Foundation
import Parley
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// `parley mcp resources|read|templates|prompts|prompt|complete` against the MCP Python SDK 2.x
/// (`peers/mcp2_peer.py`), in both eras: its resources text://greeting, blob://bytes and text://item/1…10 (listed five
/// a page), its template greeting://{name}, its prompt greet(name, style?), and their completions.
@Suite(
    "parley mcp resources, templates, prompts and completion against the MCP Python SDK 2.x",
    .enabled(if: ParleyRun.executable != nil, "needs the built parley executable (PARLEY_BIN, or next to the test bundle)"),
    .enabled(if: MCP2CLIPeer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py and sets PARLEY_MCP2_*"),
    .timeLimit(.minutes(3))
)
struct MCPCommandResourcesTests {
    /// Runs `parley mcp SUBCOMMAND URL ARGUMENTS… --era ERA` and returns its standard output, expecting success and
    /// nothing on standard error.
    private func output(
        _ subcommand: String,
        _ arguments: [String] = [],
        era: String,
        mode: String = "SSE"
    ) async throws -> String {
        let url = try #require(MCP2CLIPeer.url(mode))
        let run = try await ParleyRun(["mcp", subcommand, url] + arguments + ["--era", era])
        #expect(run.status == 0, "\(subcommand): \(run.error)")
        #expect(run.error.isEmpty, "\(subcommand): \(run.error)")
        return String(decoding: run.output, as: UTF8.self)
    }

    @Test(
        "resources lists every page: URI, name, media type; templates lists the URI templates",
        arguments: ["auto", "2025-11-25"]
    )
    func lists(era: String) async throws {
        let resources = try await output("resources", era: era).split(separator: "\n")
        #expect(resources.count == 12, "\(resources)")
        #expect(resources.first == "text://greeting\tgreeting\ttext/plain")
        #expect(resources.contains("blob://bytes\tbytes\tapplication/octet-stream"))
        #expect(resources.last == "text://item/10\titem-10\ttext/plain")
        #expect(try await output("templates", era: era) == "greeting://{name}\tgreeting-for\ttext/plain\n")
    }

    @Test("read prints a text resource, a blob in base64, and --output writes the bytes", arguments: ["auto", "2025-11-25"])
    func read(era: String) async throws {
        #expect(try await output("read", ["text://greeting"], era: era) == "hello from parley-peer2\n")
        #expect(try await output("read", ["greeting://Ada"], era: era, mode: "JSON") == "hello Ada\n")
        #expect(try await output("read", ["blob://bytes"], era: era) == "AAECAwQFBgcICQoLDA0ODw==\n")
        let folder = try CommandScratchFolder()
        let file = folder.path + "/bytes.bin"
        #expect(try await output("read", ["blob://bytes", "--output", file], era: era).isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(0..<16))
    }

    @Test(
        "prompts lists the arguments (optional ones with ?); prompt prints the messages as JSON when piped",
        arguments: ["auto", "2025-11-25"]
    )
    func prompts(era: String) async throws {
        #expect(try await output("prompts", era: era) == "greet\tGreets someone.\tname style?\n")
        let plain = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(try await output("prompt", ["greet", "name=Ada"], era: era).utf8)
        )
        #expect(plain["description"] == "Greets someone.")
        #expect(plain["messages"] == [["role": "user", "content": ["type": "text", "text": "Please greet Ada."]]])
        let formal = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(try await output("prompt", ["greet", "name=Ada", "style=formal"], era: era, mode: "JSON").utf8)
        )
        #expect(formal["messages"]?[0]?["content"]?["text"] == "Please greet Ada formally.")
    }

    @Test("prompt on a terminal prints 'role: text'")
    func promptOnTerminal() async throws {
        let url = try #require(MCP2CLIPeer.url("SSE"))
        let run = try await ParleyRun(["mcp", "prompt", url, "greet", "name=Ada"], onTerminal: true)
        #expect(run.status == 0)
        #expect(String(decoding: run.output, as: UTF8.self) == "Greets someone.\r\nuser: Please greet Ada.\r\n")
    }

    @Test("complete suggests the values of a template's variable or a prompt's argument", arguments: ["auto", "2025-11-25"])
    func complete(era: String) async throws {
        #expect(try await output("complete", ["--template", "greeting://{name}", "name", "al"], era: era) == "alice\nalex\n")
        #expect(try await output("complete", ["--template", "greeting://{name}", "name"], era: era) == "alice\nalex\nbob\n")
        #expect(try await output("complete", ["--prompt", "greet", "style", "f"], era: era, mode: "JSON") == "formal\n")
        #expect(
            try await output("complete", ["--prompt", "greet", "style", "--context", "name=Ada"], era: era) == "formal\ncasual\n"
        )
    }

    @Test("a resource the server does not have fails with its message, exit 1")
    func unknownResource() async throws {
        let url = try #require(MCP2CLIPeer.url("SSE"))
        let run = try await ParleyRun(["mcp", "read", url, "text://nothing-here"])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.error.hasPrefix("parley: "), "\(run.error)")
        #expect(run.error.contains("text://nothing-here"), "\(run.error)")
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["read", "http://127.0.0.1:1/mcp"], ["read", "http://127.0.0.1:1/mcp", "a://b", "c://d"],
            ["templates", "http://127.0.0.1:1/mcp", "extra"], ["prompt", "http://127.0.0.1:1/mcp"],
            ["prompt", "http://127.0.0.1:1/mcp", "greet", "name"], ["complete", "http://127.0.0.1:1/mcp", "name", "a"],
            ["complete", "http://127.0.0.1:1/mcp", "--prompt", "p", "--template", "t", "name"],
            ["complete", "http://127.0.0.1:1/mcp", "--prompt", "p"],
            ["complete", "--stdio", "true", "--prompt", "p", "a", "b", "c"],
            ["call", "http://127.0.0.1:1/mcp", "ask_name", "--elicit", "name"], ["resources", "--stdio", "true", "http://x/mcp"],
            ["read", "http://127.0.0.1:1/mcp", "a://b", "--output", ""],
        ]
    )
    func usage(arguments: [String]) async throws {
        let run = try await ParleyRun(["mcp"] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.error)")
        #expect(run.output.isEmpty)
    }
}
