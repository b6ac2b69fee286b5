import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPCStdio
import Testing

@testable import ParleyJSONRPC
@testable import ParleyTestSupport

/// The connection layer's task loop (work that outlives its call, as children of one task group), and the push
/// channels a client reaches without a cast.
@Suite("JSON-RPC connection layer: task loop and push channels")
struct TaskLoopTests {
    @Test("work runs in the loop; its handle says when it ended")
    func runsAndEnds() async {
        let loop = TaskLoop()
        let ran = LockedState(false)
        let handle = loop.run { ran.withLock { $0 = true } }
        await handle.wait()
        #expect(handle.isDone)
        #expect(ran.withLock { $0 })
    }

    @Test("cancelling a handle cancels its work alone; the loop runs the rest")
    func cancelOne() async {
        let loop = TaskLoop()
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        let sawCancellation = LockedState(false)
        let stuck = loop.run {
            for await _ in never {}
            sawCancellation.withLock { $0 = Task.isCancelled }
        }
        let other = loop.run {}
        await other.wait()
        #expect(!stuck.isDone, "nothing ended the stuck work yet")
        stuck.cancel()
        await stuck.wait()
        #expect(stuck.isDone)
        #expect(sawCancellation.withLock { $0 })
    }

    @Test("work of a loop let go of still runs to its end")
    func outlivesOwner() async {
        var loop: TaskLoop? = TaskLoop()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let handle = loop?.run {
            for await _ in gate { break }
        }
        loop = nil
        open.yield()
        await handle?.wait()
        #expect(handle?.isDone == true)
    }

    @Test("a client reaches the notifications of a push channel, and none on plain HTTP, without a cast")
    func pushChannels() async throws {
        let pair = PipePair(framing: .newlineDelimited, serverRouter: DemoServer.jsonRPCRouter())
        defer { try? pair.close() }
        let rpc = JSONRPCClient(channel: pair.client)
        #expect(rpc.channel.pushChannel != nil)
        try await JSONRPCClient(channel: pair.server).notify(NotifyHello(params: [7]))
        var notifications = rpc.notifications.makeAsyncIterator()
        #expect(await notifications.next()?.method == "notify_hello")

        // A batching channel groups what is sent; what the peer pushes still reaches its client.
        let batched = JSONRPCClient(channel: JSONRPCBatchingChannel(pair.client))
        #expect(batched.channel.pushChannel != nil)
        try await JSONRPCClient(channel: pair.server).notify(NotifyHello(params: [8]))
        var batchedNotifications = batched.notifications.makeAsyncIterator()
        let pushed = await batchedNotifications.next()
        #expect(pushed?.method == "notify_hello")
        #expect(pushed?.params == [8])

        let base = try #require(URL(string: "http://127.0.0.1:9"))
        let http = JSONRPCClient(http: Client(baseURL: base, transport: AsyncHTTPClientTransport.shared), path: "/rpc")
        #expect(http.channel.pushChannel == nil)
        var none = http.notifications.makeAsyncIterator()
        #expect(await none.next() == nil, "plain HTTP carries no notifications: the stream ends at once")
    }
}
