// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

// The Swift blocks of Sources/ParleyJSONRPC/ParleyJSONRPC.docc/LanguageServers.md. Those that launch a language
// server are compiled, not run (python-lsp-server is not needed to build; PylspTests talks to it when scripts/start-peers
// installed it); the last one runs on two pipes.
enum DocCLanguageServers {
struct Initialize: JSONRPCMethod {
    struct Params: Encodable, Sendable {
        @ExplicitNull var processId: Int?      // sent as "processId": null
        @ExplicitNull var rootUri: String?     // sent as "rootUri": null
        var capabilities: JSONValue = ["window": ["workDoneProgress": true]]
    }
    typealias Result = JSONValue
    static let name = "initialize"
    var params = Params()
}

struct Diagnostic: Decodable, Sendable {
    let message: String
    let severity: Int?   // 1 error, 2 warning, 3 information, 4 hint
}

struct PublishDiagnostics: Decodable, Sendable {
    let uri: String
    let diagnostics: [Diagnostic]
}

    /// The article's session with a language server: compiled, never called (it needs pylsp on the PATH).
    static func compiledOnly() async throws {
var editor = JSONRPCRouter()
editor.register("workspace/configuration") { (request: JSONValue) in
    JSONValue.array(Array(repeating: [:], count: request["items"]?.arrayValue?.count ?? 0))   // no settings
}
editor.register("window/workDoneProgress/create") { (_: JSONValue) in JSONValue.null }

let server = try JSONRPCStreamChannel.launch(
    executable: URL(fileURLWithPath: "/usr/bin/env"),
    arguments: ["pylsp"],
    standardError: FileHandle.nullDevice,
    framing: .contentLength,
    router: editor
)
let lsp = JSONRPCClient(channel: server, timeout: .seconds(30), cancellation: .lsp)
let initialized = try await lsp.call(Initialize())
print(initialized["serverInfo"]?["name"] ?? .null)   // "pylsp"
try await lsp.notify(JSONRPCDynamicMethod("initialized", params: [:]))
let uri = "file:///tmp/example.py"
try await lsp.notify(JSONRPCDynamicMethod("textDocument/didOpen", params: [
    "textDocument": ["uri": .string(uri), "languageId": "python", "version": 1, "text": "import os\n"],
]))
for await notification in server.incoming where notification.method == "textDocument/publishDiagnostics" {
    let report = try notification.decodeParams(as: PublishDiagnostics.self)
    if report.uri == uri {
        print(report.diagnostics.map(\.message))   // ["'os' imported but unused"]
        break
    }
}
let position: JSONValue = ["textDocument": ["uri": .string(uri)], "position": ["line": 0, "character": 7]]
let completions = Task {
    try await lsp.call(JSONRPCDynamicMethod("textDocument/completion", params: position))
}
completions.cancel()                          // the user typed on
print(await completions.result)               // failure(… cancelled …); the server, if it got the call, gets $/cancelRequest
let hover = try await lsp.call(JSONRPCDynamicMethod("textDocument/hover", params: position), timeout: .seconds(2))
print(hover["contents"] ?? .null)
await lsp.waitForCancellationNotices()
let references = lsp.call(
    JSONRPCDynamicMethod("textDocument/references", params: [
        "textDocument": ["uri": .string(uri)], "position": ["line": 0, "character": 7], "context": ["includeDeclaration": true],
    ]),
    progress: .lsp
)
for await update in references.progress {
    print(update.message ?? "", update.fractionCompleted ?? 0)   // as the server reports, if it does
}
print(try await references.value.arrayValue?.count ?? 0)        // the locations found
_ = try await lsp.call(JSONRPCDynamicMethod("shutdown"))
try await lsp.notify(JSONRPCDynamicMethod("exit"))
print(await server.waitForExit()?.description ?? "")   // exited with status 0
    }
}

extension DocCLanguageServers {
    @Suite("DocC: JSON-RPC for language servers", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a publishDiagnostics notification framed by hand reaches the channel's incoming")
        func framingByHand() async throws {
let fromServer = Pipe()
let toServer = Pipe()
let channel = JSONRPCStreamChannel(
    input: fromServer.fileHandleForReading, output: toServer.fileHandleForWriting, framing: .contentLength
)
let message = #"{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":"#
    + #"{"uri":"file:///tmp/example.py","diagnostics":[{"message":"'os' imported but unused","severity":2}]}}"#
try fromServer.fileHandleForWriting.write(contentsOf: Data("Content-Length: \(message.utf8.count)\r\n\r\n\(message)".utf8))
var warnings: [String] = []
for await notification in channel.incoming {
    warnings = try notification.decodeParams(as: PublishDiagnostics.self).diagnostics.map(\.message)
    print(notification.method, warnings)   // textDocument/publishDiagnostics ["'os' imported but unused"]
    break
}
channel.close()
            #expect(warnings == ["'os' imported but unused"])
        }
    }
}
