import AsyncHTTPClient
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyURLSession
import Testing

@testable import ParleyTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A redirect with a 10 GiB body keeps FoundationNetworking's one work queue busy (it holds a redirect's body in
/// memory, copying it whole at every read) and stalls every URLSession transfer of the process for minutes: nothing
/// else may stall with it. This suite leaves that queue busy until the process ends: run it in its own `swift test`
/// invocation.
@Suite("URLSession wedge isolation", .serialized, .timeLimit(.minutes(2)))
struct URLSessionWedgeTests {
    @Test(
        "while a 302 with a 10 GiB body holds URLSession, AsyncHTTPClient calls and plain tasks go on, and cancelling it ends it"
    )
    func redirectWithHugeBody() async throws {
        let server = try await FaultServer.start()
        let base = try #require(URL(string: server.baseURL))
        let wedging = Client(baseURL: base, transport: URLSessionTransport(configuration: .ephemeral))
        let ahc = Client(baseURL: base, transport: makeFaultTransport(.asyncHTTPClient))
        let ended = LockedState(false)
        let wedge = Task {
            defer { ended.withLock { $0 = true } }
            return try await wedging.send(FaultCall<Data>(path: "/redirect-huge-body"))
        }
        // More URLSession calls, each waiting on the busy queue: on a cooperative thread they would take the pool.
        let waiting = (0..<4).map { _ in
            Task { try? await wedging.send(FaultCall<String>(path: "/ok")) }
        }
        let clock = ContinuousClock()
        for _ in 0..<10 {
            let start = clock.now
            #expect(try await ahc.send(FaultCall<String>(path: "/ok")) == "ok")
            let sum = await withTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        await Task.yield()
                        return index
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(sum == 199 * 200 / 2)
            #expect(clock.now - start < .seconds(5))
        }
        // The 302's body is still arriving (10 GiB do not pass in this time): the checks above ran beside it.
        #expect(!ended.withLock { $0 })
        // Cancelling returns at once, though FoundationNetworking learns of it only when its queue is free again.
        let cancelled = clock.now
        wedge.cancel()
        await expectParleyError(.cancelled) { try await wedge.value }
        #expect(clock.now - cancelled < .seconds(5))
        // The other URLSession calls wait for the queue (FoundationNetworking creates tasks on it); they are left
        // to end when the server closes.
        for call in waiting { call.cancel() }
        try await ahc.shutdown()
        try await wedging.shutdown()
        await server.stop()
    }
}
