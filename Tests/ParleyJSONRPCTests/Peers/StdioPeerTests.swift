import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// The independent JSON-RPC peer over stdio that this suite starts as a child process: `peers/stdio_peer.py`,
/// run by the Python of `.venv`, whose protocol handling is the PyPI library `json-rpc` 1.15.0. `scripts/start-peers`
/// exports both paths.
enum StdioPeer {
    static let python = ProcessInfo.processInfo.environment["PARLEY_PYTHON"]
    static let script = ProcessInfo.processInfo.environment["PARLEY_STDIO_PEER"]

    static func launch(_ framing: JSONRPCFraming, router: JSONRPCRouter? = nil) throws -> JSONRPCStreamChannel {
        let python = try #require(python)
        let script = try #require(script)
        return try JSONRPCStreamChannel.launch(
            executable: URL(fileURLWithPath: python),
            arguments: [script, "--framing", framing == .contentLength ? "content-length" : "newline"],
            framing: framing,
            router: router
        )
    }
}

/// `ask_back` on the peer: it notifies us (`peer_note`), calls our `double`, and returns what we answered.
struct AskBack: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "ask_back"
    let params: [Int]
}

/// `hang` on the peer: notifies us `hanging`, then answers only when its input ends.
struct PeerHang: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "hang"
}

/// `exit_now` on the peer: it exits at once with the given status.
struct PeerExitNow: JSONRPCMethod {
    typealias Result = JSONValue
    static let name = "exit_now"
    let params: [Int32]
}

@Suite(
    "Independent peer: stdio child process (json-rpc)",
    .enabled(
        if: StdioPeer.python != nil && StdioPeer.script != nil,
        "scripts/start-peers exports PARLEY_PYTHON and PARLEY_STDIO_PEER (peers/stdio_peer.py)"
    )
)
struct StdioPeerTests {
    static let framings: [JSONRPCFraming] = [.contentLength, .newlineDelimited]

    @Test("calls, a batch, error objects and a notification, then a clean exit when its input ends", arguments: framings)
    func calls(_ framing: JSONRPCFraming) async throws {
        let peer = try StdioPeer.launch(framing)
        let rpc = JSONRPCClient(channel: peer)
        #expect(try await rpc.call(Subtract(params: [42, 23])) == 19)
        #expect(try await rpc.call(SubtractNamed(params: .init(minuend: 23, subtrahend: 42))) == -19)
        #expect(try await rpc.call(GetDataRPC()) == [.string("hello"), .int(5)])
        let text: JSONValue = .string("ü€ \"quoted\" \\ 😀 \n tab\t")
        #expect(try await rpc.call(EchoRPC(params: [text, .int(Int.max)])) == .array([text, .int(Int.max)]))
        let (sum, missing) = try await rpc.batch(Sum(params: [1, 2, 4]), Unknown())
        #expect(try sum.get() == 7)
        guard case .failure(let unknown) = missing else {
            Issue.record("an unknown method succeeded: \(missing)")
            return
        }
        #expect(unknown.jsonRPCError?.code == -32601)
        let quota = await expectParleyError(.jsonRPCError) { try await rpc.call(PeerQuotaFail()) }
        #expect(quota?.jsonRPCError?.code == -32010)
        #expect(quota?.jsonRPCError?.message == "Quota exceeded")

        let marker = Int.random(in: 1_000...1_000_000)
        try await rpc.notify(NotifyHello(params: [marker, 7]))
        // The peer reads its input in order: the notification was handled before this call is read.
        let received = try await rpc.call(PeerReceived(marker))
        #expect(received == [.array([.string("notify_hello"), .array([.int(marker), .int(7)])])])

        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("both directions: during our call the peer notifies us and calls our router", arguments: framings)
    func bothDirections(_ framing: JSONRPCFraming) async throws {
        var router = JSONRPCRouter()
        router.register("double") { (numbers: [Int]) in numbers.map { $0 * 2 }.reduce(0, +) }
        let peer = try StdioPeer.launch(framing, router: router)
        let rpc = JSONRPCClient(channel: peer)
        let answer = try await rpc.call(AskBack(params: [21]))
        #expect(answer == .object(["asked": .int(21), "answer": .int(42)]))
        var notifications = peer.incoming.makeAsyncIterator()
        let note = await notifications.next()
        #expect(note?.method == "peer_note")
        #expect(note?.params == .array([.string("asking"), .int(21)]))
        #expect(note?.id == nil)
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("without a router, the peer's request gets -32601 from us", arguments: framings)
    func noRouter(_ framing: JSONRPCFraming) async throws {
        let peer = try StdioPeer.launch(framing)
        let answer = try await JSONRPCClient(channel: peer).call(AskBack(params: [3]))
        #expect(answer["asked"] == .int(3))
        #expect(answer["error"]?["code"] == .int(-32601))
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("the peer exits mid-call: every pending call fails at once with its exit status", arguments: framings)
    func exitMidCall(_ framing: JSONRPCFraming) async throws {
        let peer = try StdioPeer.launch(framing)
        let rpc = JSONRPCClient(channel: peer)
        var notifications = peer.incoming.makeAsyncIterator()
        try await withThrowingTaskGroup(of: ParleyError?.self) { group in
            for _ in 0..<5 {
                group.addTask { await expectParleyError(.transport) { try await rpc.call(PeerHang()) } }
            }
            for _ in 0..<5 {  // each hanging call reached the peer
                #expect(await notifications.next()?.method == "hanging")
            }
            group.addTask { await expectParleyError(.transport) { try await rpc.call(PeerExitNow(params: [3])) } }
            var failures: [ParleyError] = []
            for try await failure in group { if let failure { failures.append(failure) } }
            #expect(failures.count == 6)
            #expect(failures.allSatisfy { $0.message.contains("exited with status 3") }, "\(failures)")
        }
        #expect(await peer.waitForExit() == JSONRPCChildExit(code: 3))
        await expectParleyError(.transport) { try await rpc.call(Sum(params: [1])) }
    }
}
