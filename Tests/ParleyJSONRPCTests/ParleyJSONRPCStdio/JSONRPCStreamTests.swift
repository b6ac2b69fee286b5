import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// Two channels joined by two OS pipes: `client` talks to `server`, which answers with `router`.
struct PipePair {
    let client: JSONRPCStreamChannel
    let server: JSONRPCStreamChannel
    let toServer = Pipe()
    let toClient = Pipe()

    init(framing: JSONRPCFraming, serverRouter: JSONRPCRouter, clientRouter: JSONRPCRouter? = nil) {
        client = JSONRPCStreamChannel(
            input: toClient.fileHandleForReading,
            output: toServer.fileHandleForWriting,
            framing: framing,
            router: clientRouter
        )
        server = JSONRPCStreamChannel(
            input: toServer.fileHandleForReading,
            output: toClient.fileHandleForWriting,
            framing: framing,
            router: serverRouter
        )
    }

    /// Ends the server's output: the client's reader sees the end of its input.
    func cutServerOutput() throws {
        try toClient.fileHandleForWriting.close()
    }

    func close() throws {
        try? toServer.fileHandleForWriting.close()
        try? toClient.fileHandleForWriting.close()
    }
}

@Suite("JSON-RPC over byte streams (stdio, pipes)")
struct JSONRPCStreamTests {
    static let framings: [JSONRPCFraming] = [.contentLength, .newlineDelimited]

    @Test("1,000 concurrent calls over one pipe, each routed to its caller", arguments: framings)
    func multiplexing(_ framing: JSONRPCFraming) async throws {
        let pair = PipePair(framing: framing, serverRouter: DemoServer.jsonRPCRouter())
        defer { try? pair.close() }
        let rpc = JSONRPCClient(channel: pair.client)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    let value = try await rpc.call(EchoRPC(params: [.int(index), .string("call \(index)")]))
                    #expect(value == .array([.int(index), .string("call \(index)")]))
                }
            }
            try await group.waitForAll()
        }
        let (sum, difference) = try await rpc.batchValues(Sum(params: [1, 2, 4]), Subtract(params: [42, 23]))
        #expect(sum == 7 && difference == 19)
        let unknown = await expectParleyError(.jsonRPCError) { try await rpc.call(Unknown()) }
        #expect(unknown?.jsonRPCError?.code == -32601)
    }

    @Test("both directions: the server calls the client and sends it notifications", arguments: framings)
    func bothDirections(_ framing: JSONRPCFraming) async throws {
        var clientRouter = JSONRPCRouter()
        clientRouter.register("ping") { (numbers: [Int]) in numbers.map { $0 * 2 } }
        let pair = PipePair(framing: framing, serverRouter: DemoServer.jsonRPCRouter(), clientRouter: clientRouter)
        defer { try? pair.close() }
        let serverSide = JSONRPCClient(channel: pair.server)
        struct Ping: JSONRPCMethod {
            typealias Result = [Int]
            static let name = "ping"
            let params: [Int]
        }
        #expect(try await serverSide.call(Ping(params: [1, 2])) == [2, 4])
        try await serverSide.notify(NotifyHello(params: [7]))
        var notifications = pair.client.incoming.makeAsyncIterator()
        let first = await notifications.next()
        #expect(first?.method == "notify_hello")
        #expect(first?.params == .array([.int(7)]))
        #expect(first?.id == nil)
    }

    @Test("when the peer's output ends, every pending call fails at once", arguments: framings)
    func dropFailsPendingCalls(_ framing: JSONRPCFraming) async throws {
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        var router = JSONRPCRouter()
        router.register("hang") { (_: [Int]) -> Int in
            startedContinuation.yield()
            for await _ in never {}
            return 0
        }
        struct Hang: JSONRPCMethod {
            typealias Result = Int
            static let name = "hang"
            let params: [Int]
        }
        let pair = PipePair(framing: framing, serverRouter: router)
        defer { try? pair.close() }
        let rpc = JSONRPCClient(channel: pair.client)
        try await withThrowingTaskGroup(of: ParleyError?.self) { group in
            for index in 0..<10 {
                group.addTask { await expectParleyError(.transport) { try await rpc.call(Hang(params: [index])) } }
            }
            var waiting = started.makeAsyncIterator()
            for _ in 0..<10 { await waiting.next() }  // every call reached the server
            try pair.cutServerOutput()
            var failures = 0
            for try await error in group where error != nil { failures += 1 }
            #expect(failures == 10)
        }
        await expectParleyError(.transport) { try await rpc.call(Sum(params: [1])) }
    }

    @Test("framing: content-length headers and lines are cut exactly, garbage gets a parse error")
    func framingDetails() async throws {
        let toServer = Pipe()
        let toClient = Pipe()
        let server = JSONRPCStreamChannel(
            input: toServer.fileHandleForReading,
            output: toClient.fileHandleForWriting,
            framing: .contentLength,
            router: DemoServer.jsonRPCRouter()
        )
        defer {
            server.close()
            try? toServer.fileHandleForWriting.close()
            try? toClient.fileHandleForWriting.close()
        }
        let sum = Data(#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}"#.utf8)
        // A header block with an extra header, split across writes in the middle of the body.
        var bytes = Data("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: \(sum.count)\r\n\r\n".utf8)
        bytes.append(sum)
        try toServer.fileHandleForWriting.write(contentsOf: bytes.prefix(70))
        try toServer.fileHandleForWriting.write(contentsOf: bytes.dropFirst(70))
        let garbage = Data("not json".utf8)
        try toServer.fileHandleForWriting.write(contentsOf: Data("Content-Length: \(garbage.count)\r\n\r\n".utf8) + garbage)
        var parser = FrameReader(handle: toClient.fileHandleForReading)
        // The two answers may come in either order: requests are answered concurrently.
        let answers = [try await parser.nextMessage(), try await parser.nextMessage()]
            .map { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        #expect(answers.contains(try json(#"{"jsonrpc":"2.0","result":3,"id":1}"#)))
        #expect(answers.contains { $0?["error"]?["code"] == .int(-32700) && $0?["id"] == .null })
    }
}

/// Reads Content-Length framed messages from a pipe, for checking what a channel wrote.
struct FrameReader {
    let handle: FileHandle
    var buffer = Data()

    mutating func nextMessage() async throws -> Data {
        while true {
            if let end = buffer.range(of: Data("\r\n\r\n".utf8)) {
                let header = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let length = try #require(Int(header.replacingOccurrences(of: "Content-Length: ", with: "")))
                if buffer.count - end.upperBound >= length {
                    let message = Data(buffer[end.upperBound..<(end.upperBound + length)])
                    buffer = Data(buffer[(end.upperBound + length)...])
                    return message
                }
            }
            let chunk = handle.availableData
            try #require(!chunk.isEmpty, "the channel closed its output")
            buffer.append(chunk)
        }
    }
}
