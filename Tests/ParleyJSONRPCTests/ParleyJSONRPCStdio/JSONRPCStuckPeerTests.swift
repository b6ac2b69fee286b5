import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Synchronization
import Testing

@testable import ParleyTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("JSON-RPC: a peer that stops reading", .timeLimit(.minutes(1)))
struct JSONRPCStuckPeerTests {
    /// Issue 14, item 1: no blocking call on a cooperative thread. A pipe holds 64 KiB, so a 1 MiB message to a peer
    /// that does not read blocks `write(2)`; the stream channel used to make that write on the calling task's
    /// thread, and with one such call per core every task of the process stopped for good.
    @Test("calls to peers that stop reading their input block no Swift thread")
    func stuckPeers() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount
        let toPeers = (0..<count).map { _ in Pipe() }
        let fromPeers = (0..<count).map { _ in Pipe() }
        let channels = (0..<count).map { index in
            JSONRPCStreamChannel(
                input: fromPeers[index].fileHandleForReading,
                output: toPeers[index].fileHandleForWriting,
                framing: .newlineDelimited
            )
        }
        let alive = DispatchSemaphore(value: 0)
        let stalled = Mutex(false)
        let big = JSONValue.string(String(repeating: "x", count: 1 << 20))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for channel in channels {
                group.addTask {
                    let rpc = JSONRPCClient(channel: channel)
                    await #expect(throws: ParleyError.self) { try await rpc.call(EchoRPC(params: [big])) }
                }
            }
            // A thread, not a task: waits until every write has begun (one byte of each arrived), then for the
            // tasks below to prove the process alive, at most 10 s. Then it closes the peers' ends, which fails the
            // blocked writes (EPIPE), so that a regression fails this test instead of hanging the run.
            await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    var byte: UInt8 = 0
                    for pipe in toPeers { _ = read(pipe.fileHandleForReading.fileDescriptor, &byte, 1) }
                    started.resume()
                    if alive.wait(timeout: .now() + .seconds(10)) == .timedOut { stalled.withLock { $0 = true } }
                    for pipe in toPeers { try? pipe.fileHandleForReading.close() }
                }
            }
            for _ in 0..<5 {
                #expect(await Task.detached { 42 }.value == 42)
            }
            alive.signal()
            try await group.waitForAll()
        }
        #expect(!stalled.withLock { $0 }, "the process stalled while \(count) JSON-RPC writes were blocked")
        for channel in channels { channel.close() }
        for pipe in fromPeers { try? pipe.fileHandleForWriting.close() }
    }

    @Test("a call's timeout holds while its write waits for a peer that stopped reading; the next call's write is skipped")
    func timeoutWhileWriteBlocked() async throws {
        let toPeer = Pipe()
        let fromPeer = Pipe()
        let channel = JSONRPCStreamChannel(
            input: fromPeer.fileHandleForReading,
            output: toPeer.fileHandleForWriting,
            framing: .newlineDelimited
        )
        let rpc = JSONRPCClient(channel: channel, timeout: .milliseconds(300))
        let big = JSONValue.string(String(repeating: "x", count: 1 << 20))  // more than the pipe holds
        let first = await expectParleyError(.timeout) { try await rpc.call(EchoRPC(params: [big])) }
        #expect(first?.message.contains("timeout of 0.3 seconds") == true, "\(String(describing: first))")
        // Queued behind the blocked write: it times out too, and is then not written at all.
        await expectParleyError(.timeout) { try await rpc.call(EchoRPC(params: ["small"])) }
        // The peer's end closed: the blocked write fails (EPIPE) and the queue drains.
        try toPeer.fileHandleForReading.close()
        channel.close()
        try fromPeer.fileHandleForWriting.close()
    }
}
