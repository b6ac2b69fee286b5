import Foundation
import Parley
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// `parley mcp` against the MCP Python SDK 2.x (`peers/mcp2_peer.py`), which speaks both eras at one URL, the same
/// server refusing the handshake era, and the SDK 1.30 (`peers/mcp_peer.py`), which speaks only the handshake era: the
/// era found without flags, `--era`, `-v`, the answers to the server's questions (elicitation), `--header`,
/// `--idle-timeout`.
@Suite(
    "parley mcp in both protocol eras, against the MCP Python SDK 2.x and 1.30",
    .enabled(if: ParleyRun.executable != nil, "needs the built parley executable (PARLEY_BIN, or next to the test bundle)"),
    .enabled(if: MCP2CLIPeer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py and sets PARLEY_MCP2_*"),
    .timeLimit(.minutes(3))
)
struct MCPCommandErasTests {
    @Test(
        "parley mcp tools works without flags against a handshake-only, a stateless-only and a dual server; -v says which",
        arguments: [
            ("PARLEY_MCP_SSE_URL", "2025-11-25 (handshake era)"), ("PARLEY_MCP2_MODERN_URL", "2026-07-28 (stateless era)"),
            ("PARLEY_MCP2_SSE_URL", "2026-07-28 (stateless era)"), ("PARLEY_MCP2_JSON_URL", "2026-07-28 (stateless era)"),
        ]
    )
    func toolsInEveryEra(variable: String, era: String) async throws {
        let url = try #require(ProcessInfo.processInfo.environment[variable])
        let plain = try await ParleyRun(["mcp", "tools", url])
        #expect(plain.status == 0, "\(plain.error)")
        #expect(plain.error.isEmpty, "\(plain.error)")
        let lines = String(decoding: plain.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains("add\tAdds two integers."), "\(lines)")
        let verbose = try await ParleyRun(["mcp", "tools", "-v", url])
        #expect(verbose.status == 0, "\(verbose.error)")
        #expect(verbose.error.hasPrefix("parley: MCP protocol \(era) with parley-peer"), "\(verbose.error)")
        #expect(verbose.output == plain.output)
    }

    @Test("--era pins the era of a dual server: the handshake at 2025-11-25 or an older version, or 2026-07-28")
    func pinnedEra() async throws {
        let url = try #require(MCP2CLIPeer.url("SSE"))
        for (era, said) in [
            ("2025-11-25", "2025-11-25 (handshake era)"), ("2025-06-18", "2025-06-18 (handshake era)"),
            ("2026-07-28", "2026-07-28 (stateless era)"), ("auto", "2026-07-28 (stateless era)"),
        ] {
            let run = try await ParleyRun(["mcp", "tools", url, "--era", era, "--verbose"])
            #expect(run.status == 0, "\(era): \(run.error)")
            #expect(run.error.hasPrefix("parley: MCP protocol \(said) with parley-peer2 "), "\(era): \(run.error)")
        }
        let unknown = try await ParleyRun(["mcp", "tools", url, "--era", "2023-01-01"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("--era takes auto or a protocol version"), "\(unknown.error)")
    }

    @Test(
        "a form question is answered from --elicit; without it the call is declined, and stderr says so",
        arguments: ["SSE", "JSON"],
        ["auto", "2025-11-25"]
    )
    func elicitation(mode: String, era: String) async throws {
        let url = try #require(MCP2CLIPeer.url(mode))
        let answered = try await ParleyRun(["mcp", "call", url, "ask_name", "--elicit", "name=Ada", "--era", era])
        #expect(answered.status == 0, "\(answered.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: answered.output) == ["result": "hello Ada"])
        #expect(answered.error.isEmpty, "\(answered.error)")
        let declined = try await ParleyRun(["mcp", "call", url, "ask_name", "--era", era])
        #expect(declined.status == 0, "\(declined.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: declined.output) == ["result": "declined"])
        #expect(
            declined.error == "parley: declined the server's question \"What is your name?\": its required field name "
                + "has no answer; give --elicit name=VALUE.\n"
        )
        let url2 = try await ParleyRun(["mcp", "call", url, "open_url", "--era", era])
        #expect(url2.status == 0, "\(url2.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: url2.output) == ["result": "decline"])
        #expect(url2.error.contains("it asks to open https://example.com/consent, which needs a terminal"), "\(url2.error)")
    }

    @Test("over stdio too: the era is found, and the question is answered from --elicit")
    func stdio() async throws {
        let command = try #require(MCP2CLIPeer.stdioCommand)
        let run = try await ParleyRun(["mcp", "call", "--stdio", command, "-v", "ask_name", "--elicit", "name=Ada"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("parley: MCP protocol 2026-07-28 (stateless era) with parley-peer2 "), "\(run.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: run.output) == ["result": "hello Ada"])
        let asked = try await ParleyRun(["mcp", "call", "--stdio", command, "roots"])
        #expect(asked.status == 0, "\(asked.error)")
        let roots = try JSONDecoder().decode(JSONValue.self, from: asked.output)
        #expect(roots["result"]?[0]?.stringValue?.hasPrefix("file:///") == true, "\(roots)")
    }

    @Test(
        "on a terminal each field is asked for: an empty answer to a required field asks again",
        arguments: ["auto", "2025-11-25"]
    )
    func terminalForm(era: String) async throws {
        let url = try #require(MCP2CLIPeer.url("SSE"))
        let run = try await TerminalRun(["mcp", "call", url, "ask_name", "--era", era], typing: "\nAda\n")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("The server asks: What is your name?"), "\(run.output)")
        #expect(run.output.contains("This field is required (Ctrl-D declines)."), "\(run.output)")
        #expect(run.output.contains("\"hello Ada\""), "\(run.output)")
    }

    @Test("on a terminal Ctrl-D declines a form; Enter accepts a URL, n declines it")
    func terminalDecisions() async throws {
        let url = try #require(MCP2CLIPeer.url("SSE"))
        let ended = try await TerminalRun(["mcp", "call", url, "ask_name"], typing: "")
        #expect(ended.status == 0, "\(ended.output)")
        #expect(ended.output.contains("end of input (Ctrl-D)"), "\(ended.output)")
        #expect(ended.output.contains("\"declined\""), "\(ended.output)")
        let accepted = try await TerminalRun(["mcp", "call", url, "open_url"], typing: "\n")
        #expect(accepted.output.contains("The server asks you to open https://example.com/consent"), "\(accepted.output)")
        #expect(accepted.output.contains("\"accept\""), "\(accepted.output)")
        let declined = try await TerminalRun(["mcp", "call", url, "open_url", "--era", "2025-11-25"], typing: "n\n")
        #expect(declined.output.contains("\"decline\""), "\(declined.output)")
    }

    @Test("--header goes with every request to the server's URL")
    func header() async throws {
        let url = try #require(MCP2CLIPeer.url("MODERN"))
        let token = "parley-\(UUID().uuidString)"
        let run = try await ParleyRun(["mcp", "tools", url, "--header", "X-Parley-Test: \(token)", "--header", "X-Other:1"])
        #expect(run.status == 0, "\(run.error)")
        let log = try await MCP2CLIPeer.requests(url)
        let sent = log.filter { $0["headers"]?["x-parley-test"]?.stringValue == token }
        #expect(sent.compactMap { $0["rpcMethod"]?.stringValue } == ["server/discover", "tools/list"], "\(log.suffix(4))")
        #expect(sent.allSatisfy { $0["headers"]?["x-other"] == "1" })
        let stdio = try await ParleyRun(["mcp", "tools", "--stdio", "true", "--header", "A:b"])
        #expect(stdio.status == 64)
        let bad = try await ParleyRun(["mcp", "tools", url, "--header", "no colon"])
        #expect(bad.status == 64)
        #expect(bad.error.contains("--header takes NAME:VALUE"), "\(bad.error)")
    }

    @Test("--idle-timeout: progress restarts it; a tool that goes quiet exits 2", arguments: ["auto", "2025-11-25"])
    func idleTimeout(era: String) async throws {
        let url = try #require(MCP2CLIPeer.url("SSE"))
        // 5 s of ticks, one every 0.5 s: longer than the idle limit of 3 s, which only the ticks' restarts can pass.
        let ticking = try await ParleyRun(
            ["mcp", "call", url, "tick", "n:=10", "interval:=0.5", "--idle-timeout", "3", "--timeout", "30", "--era", era]
        )
        #expect(ticking.status == 0, "\(ticking.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: ticking.output) == ["result": "ticked 10 times"])
        let quiet = try await ParleyRun(["mcp", "call", url, "wait", "seconds:=30", "--idle-timeout", "0.5", "--era", era])
        #expect(quiet.status == 2, "\(quiet.error)")
        #expect(quiet.output.isEmpty)
        #expect(quiet.error.contains("idle limit of 0.5 seconds"), "\(quiet.error)")
        #expect(try await ParleyRun(["mcp", "call", url, "wait", "--idle-timeout", "0"]).status == 64)
    }
}

/// The SDK 2.x peers' URLs and stdio command for the command line tests.
enum MCP2CLIPeer {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// `SSE`, `JSON` (both eras at one URL) or `MODERN` (2026-07-28 only).
    static func url(_ mode: String) -> String? {
        environment["PARLEY_MCP2_\(mode)_URL"]
    }

    static var stdioCommand: String? {
        guard let python = environment["PARLEY_MCP2_PYTHON"], let script = environment["PARLEY_MCP2_PEER"] else { return nil }
        return "'\(python)' '\(script)' stdio"
    }

    static var isRunning: Bool {
        ["SSE", "JSON", "MODERN"].allSatisfy { url($0) != nil } && stdioCommand != nil
            && environment["PARLEY_MCP_SSE_URL"] != nil
    }

    /// The requests the peer at `url` recorded (`GET /requests`, fetched with `parley get`), oldest first.
    static func requests(_ url: String) async throws -> [JSONValue] {
        let base = try #require(URL(string: url)?.deletingLastPathComponent())
        let run = try await ParleyRun(["get", base.appendingPathComponent("requests").absoluteString])
        #expect(run.status == 0, "\(run.error)")
        return try JSONDecoder().decode(JSONValue.self, from: run.output).arrayValue ?? []
    }
}

/// `parley` run on a pseudo-terminal (util-linux `script`) with `typing` as what the user types, then the end of
/// input (Ctrl-D); its standard output and error both in ``output``, with CR LF line ends.
struct TerminalRun {
    let status: Int32
    let output: String

    init(_ arguments: [String], typing: String) async throws {
        let executable = try #require(ParleyRun.executable)
        let script = try #require(ParleyRun.script, "util-linux `script` runs parley on a pseudo-terminal")
        let folder = try CommandScratchFolder()
        let quoted = ([executable.path] + arguments).map { "'" + $0.replacing("'", with: #"'\''"#) + "'" }
        try ("exec " + quoted.joined(separator: " ") + "\n").write(
            toFile: folder.path + "/run.sh",
            atomically: true,
            encoding: .utf8
        )
        try typing.write(toFile: folder.path + "/typed", atomically: true, encoding: .utf8)
        let outputPath = folder.path + "/output"
        let exit = try await runGuarded(
            "/bin/sh",
            ["-c", #"exec "$0" -qec "sh $1/run.sh" /dev/null < "$1/typed""#, script.path, folder.path],
            output: outputPath,
            error: outputPath,
            hangGuard: .seconds(60),
            name: "parley \(arguments.joined(separator: " ")) on a terminal"
        )
        status = exit.code
        output = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self)
    }
}
