import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

@Suite("JSONRPCRouter.serve: a server over a pair of byte streams")
struct JSONRPCRouterServeTests {
    /// Serves the demo router on pipes: writes `input`, closes it, waits for `serve` to return, and returns
    /// what it wrote (all of it: `serve` returns only once every answer is written).
    func serve(_ input: Data, framing: JSONRPCFraming) async throws -> (Data, ParleyError?) {
        let toServer = Pipe()
        let fromServer = Pipe()
        try toServer.fileHandleForWriting.write(contentsOf: input)
        try toServer.fileHandleForWriting.close()
        var failure: ParleyError?
        do {
            try await DemoServer.jsonRPCRouter().serve(
                input: toServer.fileHandleForReading,
                output: fromServer.fileHandleForWriting,
                framing: framing
            )
        } catch {
            failure = error
        }
        try fromServer.fileHandleForWriting.close()
        return (try fromServer.fileHandleForReading.readToEnd() ?? Data(), failure)
    }

    /// A router whose `slow` waits until its task is cancelled, and says so on `cancelled`.
    static func slowRouter() -> (JSONRPCRouter, AsyncStream<String>) {
        let (cancelled, continuation) = AsyncStream.makeStream(of: String.self)
        var router = JSONRPCRouter()
        router.register("slow") { () async throws -> Int in
            // Waits for nothing but its task's cancellation: a stream that never yields ends when the task is cancelled.
            let (never, _) = AsyncStream.makeStream(of: Never.self)
            for await _ in never {}
            continuation.yield("cancelled")
            throw CancellationError()
        }
        return (router, cancelled)
    }

    @Test(
        "a peer's cancellation cancels the handler's task: $/cancelRequest answers -32800, notifications/cancelled nothing",
        arguments: [("lsp", true), ("mcp", false)]
    )
    func peerCancellation(style: String, answered: Bool) async throws {
        let (router, cancelled) = Self.slowRouter()
        let cancel =
            style == "lsp"
            ? #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"s1"}}"#
            : #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1","reason":"no longer needed"}}"#
        let input = Data((#"{"jsonrpc":"2.0","method":"slow","id":"s1"}"# + "\n" + cancel + "\n").utf8)
        let toServer = Pipe()
        let fromServer = Pipe()
        try toServer.fileHandleForWriting.write(contentsOf: input)
        try toServer.fileHandleForWriting.close()
        try await router.serve(
            input: toServer.fileHandleForReading,
            output: fromServer.fileHandleForWriting,
            framing: .newlineDelimited
        )
        try fromServer.fileHandleForWriting.close()
        let output = try fromServer.fileHandleForReading.readToEnd() ?? Data()
        var signals = cancelled.makeAsyncIterator()
        #expect(await signals.next() == "cancelled")
        if answered {
            let answer = try JSONDecoder().decode(JSONValue.self, from: output)
            #expect(answer == ["jsonrpc": "2.0", "error": ["code": -32800, "message": "Request cancelled"], "id": "s1"])
        } else {
            #expect(output.isEmpty, "\(String(decoding: output, as: UTF8.self))")
        }
    }

    @Test("newline framing: every answer is written before serve returns; notifications get none")
    func newlineDelimited() async throws {
        let input = """
            {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}

            {"jsonrpc":"2.0","method":"notify_hello","params":[7]}
            [{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"b"},{"jsonrpc":"2.0","method":"foobar","id":3}]
            not json\r

            """
        let (output, failure) = try await serve(Data(input.utf8), framing: .newlineDelimited)
        #expect(failure == nil)
        let lines = output.split(separator: UInt8(ascii: "\n")).map { try? JSONDecoder().decode(JSONValue.self, from: Data($0)) }
        #expect(lines.count == 3)
        #expect(lines.contains(try json(#"{"jsonrpc":"2.0","result":19,"id":1}"#)))
        #expect(lines.contains { $0?["error"]?["code"] == .int(-32700) })
        let batch = lines.first { if case .array? = $0 { true } else { false } }
        #expect(batch??[0]?["result"] == .int(7) || batch??[1]?["result"] == .int(7))
    }

    @Test("content-length framing: many messages in one write, answered in full")
    func contentLength() async throws {
        var input = Data()
        for index in 0..<200 {
            let message = Data(#"{"jsonrpc":"2.0","method":"sum","params":[\#(index),1],"id":\#(index)}"#.utf8)
            input.append(JSONRPCTestFraming.contentLength(message))
        }
        let (output, failure) = try await serve(input, framing: .contentLength)
        #expect(failure == nil)
        let reader = Pipe()
        try reader.fileHandleForWriting.write(contentsOf: output)
        try reader.fileHandleForWriting.close()
        var frames = FrameReader(handle: reader.fileHandleForReading)
        var results: [Int: JSONValue] = [:]
        for _ in 0..<200 {
            let answer = try JSONDecoder().decode(JSONValue.self, from: try await frames.nextMessage())
            guard case .int(let id)? = answer["id"] else { Issue.record("no id in \(answer)"); continue }
            results[id] = answer["result"]
        }
        #expect(results.count == 200)
        #expect(results[41] == .int(42))
    }

    @Test("a broken header block ends serving with jsonRPCProtocol, after the answers before it")
    func brokenFraming() async throws {
        var input = JSONRPCTestFraming.contentLength(Data(#"{"jsonrpc":"2.0","method":"get_data","id":1}"#.utf8))
        input.append(Data("Content-Type: text/plain\r\n\r\n{}".utf8))
        let (output, failure) = try await serve(input, framing: .contentLength)
        #expect(failure?.kind == .jsonRPCProtocol)
        #expect(String(decoding: output, as: UTF8.self).contains(#""result":["hello",5]"#))
    }

    @Test("an output whose reader went away is a transport error")
    func brokenOutput() async throws {
        let toServer = Pipe()
        let fromServer = Pipe()
        try fromServer.fileHandleForReading.close()
        try toServer.fileHandleForWriting.write(
            contentsOf: Data(#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#.utf8 + [10])
        )
        try toServer.fileHandleForWriting.close()
        await expectParleyError(.transport) {
            try await DemoServer.jsonRPCRouter().serve(
                input: toServer.fileHandleForReading,
                output: fromServer.fileHandleForWriting,
                framing: .newlineDelimited
            )
        }
    }
}

/// Frames messages the way a peer of ours would, without the library's own code.
enum JSONRPCTestFraming {
    static func contentLength(_ message: Data) -> Data {
        Data("Content-Length: \(message.count)\r\n\r\n".utf8) + message
    }
}
