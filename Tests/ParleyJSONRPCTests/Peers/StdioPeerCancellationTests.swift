import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// `received("cancel")` on the peer: the cancellation notifications it recorded.
private struct PeerCancellations: JSONRPCMethod {
    typealias Result = [JSONValue]
    static let name = "received"
    var params: [String] { ["cancel"] }
}

@Suite(
    "Independent peer: a cancelled or timed-out call reaches the peer (json-rpc over stdio)",
    .enabled(
        if: StdioPeer.python != nil && StdioPeer.script != nil,
        "scripts/start-peers exports PARLEY_PYTHON and PARLEY_STDIO_PEER (peers/stdio_peer.py)"
    ),
    .timeLimit(.minutes(1))
)
struct StdioPeerCancellationTests {
    /// The cancellation notifications the peer has recorded (each as `[method, ["cancel", method, params]]`), asked for until one is there: the client sends it
    /// without waiting, after the call failed, so the question may overtake it.
    private static func cancellations(_ rpc: JSONRPCClient) async throws -> [JSONValue] {
        for _ in 0..<500 {
            let recorded = try await rpc.call(PeerCancellations())
            if !recorded.isEmpty { return recorded }
        }
        Issue.record("the peer recorded no cancellation after 500 questions")
        return []
    }

    @Test("LSP: a call past its timeout fails with timeout and the peer receives $/cancelRequest with its id")
    func lspTimeout() async throws {
        let peer = try StdioPeer.launch(.contentLength)
        let rpc = JSONRPCClient(
            channel: peer,
            ids: JSONRPCListedIDs([41], then: JSONRPCSequentialIDs(startingAt: 100)),
            cancellation: .lsp
        )
        let failure = await expectParleyError(.timeout) { try await rpc.call(PeerHang(), timeout: .milliseconds(300)) }
        #expect(failure?.message.contains("id 41") == true, "\(String(describing: failure))")
        let recorded = try await Self.cancellations(rpc)
        #expect(recorded == [["$/cancelRequest", ["cancel", "$/cancelRequest", ["id": 41]]]])
        // The peer stopped working on it (it answered -32800, which the client dropped) and still serves calls.
        #expect(try await rpc.call(Sum(params: [1, 2])) == 3)
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("MCP: cancelling the calling task fails the call with cancelled; the peer receives notifications/cancelled")
    func mcpCancelledTask() async throws {
        let peer = try StdioPeer.launch(.newlineDelimited)
        let rpc = JSONRPCClient(channel: peer, ids: JSONRPCListedIDs(["call-1"], then: JSONRPCUUIDIDs()), cancellation: .mcp)
        var notifications = peer.incoming.makeAsyncIterator()
        let call = Task { await expectParleyError(.cancelled) { try await rpc.call(PeerHang()) } }
        #expect(await notifications.next()?.method == "hanging")  // the call reached the peer
        call.cancel()
        _ = await call.value
        let recorded = try await Self.cancellations(rpc)
        #expect(
            recorded == [
                [
                    "notifications/cancelled",
                    ["cancel", "notifications/cancelled", ["requestId": "call-1", "reason": "cancelled by the client"]],
                ]
            ]
        )
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("the client's timeout applies to every call that gives none; without a cancellation the peer hears nothing")
    func clientTimeoutWithoutCancellation() async throws {
        let peer = try StdioPeer.launch(.newlineDelimited)
        // 3 s: the sum below must be answered within it while the rest of the suite runs beside it (on two cores, with a
        // dozen Python peers starting, a round trip took more than the 0.2 s this test once allowed, and more than 1 s).
        let rpc = JSONRPCClient(channel: peer, timeout: .seconds(3))
        // The peer answers first (a call that gives its own timeout): a Python interpreter still starting on a busy
        // machine takes longer than the client's timeout, which is for the calls below, not for the start.
        #expect(try await rpc.call(Sum(params: [1, 1]), timeout: .seconds(30)) == 2)
        await expectParleyError(.timeout) { try await rpc.call(PeerHang()) }
        #expect(try await rpc.call(Sum(params: [2, 3])) == 5, "a call within the timeout")
        #expect(try await rpc.call(PeerCancellations()) == [])
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test(
        "the peer cancels a request it made of us: the router's handler is cancelled; LSP answers -32800, MCP nothing",
        arguments: [JSONRPCFraming.contentLength, .newlineDelimited]
    )
    func peerCancelsOurHandler(framing: JSONRPCFraming) async throws {
        let style = framing == .contentLength ? "lsp" : "mcp"
        let (router, cancelled) = JSONRPCRouterServeTests.slowRouter()
        let peer = try StdioPeer.launch(framing, router: router)
        let rpc = JSONRPCClient(channel: peer, timeout: .seconds(30))
        let answer = try await rpc.call(JSONRPCDynamicMethod("ask_and_cancel", params: [.string(style)]))
        var signals = cancelled.makeAsyncIterator()
        #expect(await signals.next() == "cancelled")
        if style == "lsp" {
            #expect(answer["error"] == ["code": -32800, "message": "Request cancelled"], "\(answer)")
            #expect(answer["id"]?.stringValue?.hasPrefix("peer-") == true)
        } else {
            #expect(answer == .null, "MCP: a cancelled request gets no answer; got \(answer)")
        }
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("LSP work done progress: the call carries workDoneToken and its $/progress notifications arrive in order")
    func lspProgress() async throws {
        let peer = try StdioPeer.launch(.contentLength)
        let rpc = JSONRPCClient(channel: peer, timeout: .seconds(30))
        let call = rpc.call(JSONRPCDynamicMethod("work", params: ["steps": 3]), progress: .lsp)
        var updates: [JSONRPCProgressUpdate] = []
        for await update in call.progress { updates.append(update) }
        #expect(try await call.value == "worked 3 steps")
        #expect(updates.map(\.message) == ["Working", "step 1", "step 2", "step 3", "done"])
        #expect(updates.map(\.progress) == [0, 25, 50, 75, 100])
        #expect(updates.allSatisfy { $0.total == 100 && $0.params?["token"] == call.token })
        // Positional parameters cannot carry a token: refused before anything is sent.
        let refused = rpc.call(Sum(params: [1, 2]), progress: .lsp)
        await expectParleyError(.invalidRequest) { try await refused.value }
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }
}
