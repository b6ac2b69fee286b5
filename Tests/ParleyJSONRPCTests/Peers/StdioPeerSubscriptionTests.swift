import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// Counts the handlers of the peer's `hold` requests running at once, and holds each until opened.
private actor HoldGate {
    private(set) var running = 0
    private(set) var mostRunning = 0
    private(set) var handled = 0
    private var isOpen = false
    /// Opens once this many are held (``open(whenRunning:)``).
    private var openAt: Int?
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func hold() async {
        running += 1
        mostRunning = max(mostRunning, running)
        if let openAt, running >= openAt { open() }
        if !isOpen { await withCheckedContinuation { waiting.append($0) } }
        running -= 1
        handled += 1
    }

    /// Opens once `count` handlers are held: the refusals can reach the peer before the last handlers of the limit
    /// have started (a busy machine), and none may finish before they all have.
    func open(whenRunning count: Int) {
        if running >= count { open() } else { openAt = count }
    }

    private func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}

@Suite(
    "Independent peer: subscriptions and floods over stdio (json-rpc)",
    .enabled(
        if: StdioPeer.python != nil && StdioPeer.script != nil,
        "scripts/start-peers exports PARLEY_PYTHON and PARLEY_STDIO_PEER (peers/stdio_peer.py)"
    ),
    .timeLimit(.minutes(1))
)
struct StdioPeerSubscriptionTests {
    @Test(
        "a subscription over stdio: notifications sent before its answer are held for it, all arrive in order, unsubscribe on cancel",
        arguments: StdioPeerTests.framings
    )
    func subscription(_ framing: JSONRPCFraming) async throws {
        let channel = try StdioPeer.launch(framing)
        let rpc = JSONRPCClient(channel: channel)
        let ticks = try await channel.subscribe(
            JSONRPCDynamicMethod("subscribe", params: ["prices", 20]),
            notifications: .parameter("subscription", of: "tick"),
            unsubscribe: "unsubscribe"
        )
        let key = try #require(ticks.key)
        var numbers: [Int] = []
        for try await tick in ticks {
            #expect(tick.params?["subscription"] == key)
            numbers.append(try #require(tick.params?["n"]?.intValue))
            if numbers.count == 20 { break }
        }
        #expect(numbers == Array(0..<20))
        await ticks.cancel()
        let unsubscribed = try await rpc.call(JSONRPCDynamicMethod("received", params: ["unsubscribe"]))
        #expect(unsubscribed == [["unsubscribe", ["unsubscribe", key]]])
        _ = await channel.shutdown()
    }

    @Test("a subscription whose consumer falls 4096 notifications behind ends with an error that says so")
    func slowConsumer() async throws {
        let channel = try StdioPeer.launch(.newlineDelimited)
        let rpc = JSONRPCClient(channel: channel)
        let bursts = try await channel.subscribe(
            JSONRPCDynamicMethod("subscribe", params: ["burst", 0]),
            notifications: .method("burst")
        )
        // 5000 notifications, all read by the channel before the answer; nobody iterates the subscription meanwhile.
        #expect(try await rpc.call(JSONRPCDynamicMethod("burst", params: [5000])) == 5000)
        var received = 0
        let error = await #expect(throws: ParleyError.self) {
            for try await _ in bursts { received += 1 }
        }
        #expect(received == 4096, "the newest 4096 are kept")
        #expect(error?.kind == .transport)
        #expect(error?.message.contains("fell behind") == true, "\(String(describing: error))")
        // The channel itself is fine.
        #expect(try await rpc.call(JSONRPCDynamicMethod("echo", params: [1])) == [1])
        _ = await channel.shutdown()
    }

    @Test("unread notifications beyond 4096 are dropped, the oldest first, rather than grow without bound")
    func unreadIncoming() async throws {
        let channel = try StdioPeer.launch(.newlineDelimited)
        let rpc = JSONRPCClient(channel: channel)
        #expect(try await rpc.call(JSONRPCDynamicMethod("burst", params: [6000])) == 6000)
        var numbers: [Int] = []
        for await notification in channel.incoming where notification.method == "burst" {
            numbers.append(try #require(notification.params?["n"]?.intValue))
            if numbers.last == 5999 { break }
        }
        #expect(numbers == Array(1904..<6000))
        _ = await channel.shutdown()
    }

    @Test("a peer that sends 1,100 requests at once: 1,024 are handled together, the rest refused with -32000 at once")
    func requestFlood() async throws {
        let gate = HoldGate()
        var router = JSONRPCRouter()
        router.register("hold") { (numbers: [Int]) async -> Int in
            await gate.hold()
            return numbers.first ?? -1
        }
        let channel = try StdioPeer.launch(.contentLength, router: router)
        // The peer notifies flood_release once the 76 refusals reached it: the held handlers may then finish, once all
        // 1,024 have started.
        let releaser = Task {
            for await notification in channel.incoming where notification.method == "flood_release" {
                await gate.open(whenRunning: 1024)
                return
            }
        }
        let rpc = JSONRPCClient(channel: channel, timeout: .seconds(50))
        let answered = try await rpc.call(
            JSONRPCDynamicMethod("flood", params: ["count": 1100, "method": "hold", "release_after_errors": 76])
        )
        #expect(answered == 1024)
        #expect(await gate.mostRunning == 1024)
        #expect(await gate.handled == 1024)
        await releaser.value
        _ = await channel.shutdown()
    }
}
