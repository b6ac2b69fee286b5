import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// `initialize` as an editor sends it: `processId` and `rootUri` are explicit nulls (typed params, `@ExplicitNull`).
private struct LSPInitialize: JSONRPCMethod {
    struct Params: Encodable, Sendable {
        @ExplicitNull var processId: Int?
        @ExplicitNull var rootUri: String?
        var capabilities: JSONValue = [:]
    }
    typealias Result = JSONValue
    static let name = "initialize"
    var params = Params()
}

/// python-lsp-server (pylsp), which `scripts/start-peers` installs: a language server over Content-Length stdio.
@Suite(
    "Independent peer: python-lsp-server over Content-Length stdio",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_PYLSP"] != nil,
        "scripts/start-peers installs pylsp and sets PARLEY_PYLSP"
    ),
    .timeLimit(.minutes(1))
)
struct PylspTests {
    @Test("initialize with explicit nulls, a hover, a call past its timeout that pylsp hears cancelled, shutdown and exit")
    func session() async throws {
        let pylsp = try #require(ProcessInfo.processInfo.environment["PARLEY_PYLSP"])
        let folder = try CommandScratchFolder()
        let log = folder.path + "/pylsp.log"
        let server = try JSONRPCStreamChannel.launch(
            executable: URL(fileURLWithPath: pylsp),
            arguments: ["-vv", "--log-file", log],
            standardError: FileHandle.nullDevice,
            framing: .contentLength
        )
        let rpc = JSONRPCClient(
            channel: server,
            ids: JSONRPCListedIDs([1, 2, 3, 4], then: JSONRPCSequentialIDs(startingAt: 100)),
            timeout: .seconds(30),
            cancellation: .lsp
        )
        let initialized = try await rpc.call(LSPInitialize())
        #expect(initialized["serverInfo"]?["name"] == "pylsp", "\(initialized)")
        #expect(initialized["capabilities"]?["hoverProvider"] == true)
        try await rpc.notify(JSONRPCDynamicMethod("initialized", params: [:]))
        let uri = "file://\(folder.path)/example.py"
        try await rpc.notify(
            JSONRPCDynamicMethod(
                "textDocument/didOpen",
                params: [
                    "textDocument": [
                        "uri": .string(uri), "languageId": "python", "version": 1, "text": "import os\nos.getcwd()\n",
                    ]
                ]
            )
        )
        let position: JSONValue = ["textDocument": ["uri": .string(uri)], "position": ["line": 1, "character": 4]]
        let hover = try await rpc.call(JSONRPCDynamicMethod("textDocument/hover", params: position))
        #expect(hover["contents"] != nil, "\(hover)")
        // Call 3 cannot be answered in time: pylsp is stopped (SIGSTOP) while it waits, so it fails with timeout
        // whatever the machine's load, and pylsp, continued, receives $/cancelRequest. (A 1 ms timeout alone raced a
        // warm completion under CI load.)
        let pid = try #require(server.processIdentifier)
        #expect(kill(pid, SIGSTOP) == 0)
        await expectParleyError(.timeout) {
            try await rpc.call(JSONRPCDynamicMethod("textDocument/completion", params: position), timeout: .milliseconds(50))
        }
        await rpc.waitForCancellationNotices()
        #expect(kill(pid, SIGCONT) == 0)
        // The channel still works; shutdown answers null, and exit ends the server.
        #expect(try await rpc.call(JSONRPCDynamicMethod("shutdown")) == .null)
        try await rpc.notify(JSONRPCDynamicMethod("exit"))
        #expect(await server.waitForExit() == JSONRPCChildExit(code: 0))
        // pylsp logs every $/cancelRequest it handles, with the id, cancelled in time or not.
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(
            logged.contains("Cancelled request with id 3") || logged.contains("cancel notification for unknown message id 3"),
            "pylsp's log does not show the cancellation of request 3"
        )
    }
}
