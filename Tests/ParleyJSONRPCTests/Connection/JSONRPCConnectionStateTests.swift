import Foundation
import Parley
import Testing

@testable import ParleyJSONRPC

/// The connection's state machine, fed events directly: what each event returns is what the connection does.
@Suite("JSON-RPC connection state machine")
struct JSONRPCConnectionStateTests {
    private static let write: JSONRPCConnectionState.Writer = { _ in }

    /// The call token of a message begun on an open connection.
    private static func call(_ state: inout JSONRPCConnectionState, _ ids: [JSONRPCID]) throws -> Int {
        guard case .ready(_, let call?) = try state.begin(ids) else {
            Issue.record("expected an open connection")
            throw CancellationError()
        }
        return call
    }

    @Test("an answer that arrives before its caller suspends is kept for it; a stray answer is dropped")
    func answerBeforeSuspend() async throws {
        let state = LockedState(JSONRPCConnectionState(writer: Self.write))
        let token = try state.withLock { try Self.call(&$0, [1, 2]) }
        #expect(state.withLock { $0.answer([7], JSONRPCReply(data: Data("stray".utf8))) } == nil)
        #expect(state.withLock { $0.answer([2], JSONRPCReply(data: Data("batch".utf8))) } == nil)
        let reply = try await withCheckedThrowingContinuation { continuation in
            if let now = state.withLock({ $0.suspend(token, continuation) }) {
                continuation.resume(with: now.mapError { $0 as any Error })
            } else {
                Issue.record("the kept answer should be handed over at once")
            }
        }
        #expect(reply.data == Data("batch".utf8))
        #expect(state.withLock { $0.pendingCalls } == 0)
        // Its other id is free again.
        _ = try state.withLock { try Self.call(&$0, [1]) }
    }

    @Test("a suspended caller is resumed by its answer")
    func answerAfterSuspend() async throws {
        let state = LockedState(JSONRPCConnectionState(writer: Self.write))
        let token = try state.withLock { try Self.call(&$0, ["a"]) }
        let reply = try await withCheckedThrowingContinuation { continuation in
            #expect(state.withLock { $0.suspend(token, continuation) } == nil)
            state.withLock { $0.answer(["a"], JSONRPCReply(data: Data("ok".utf8))) }?.resume(
                returning: JSONRPCReply(data: Data("ok".utf8))
            )
        }
        #expect(reply.data == Data("ok".utf8))
    }

    @Test("an id already waiting is refused; an abandoned call frees its ids")
    func duplicateIDs() throws {
        var state = JSONRPCConnectionState(writer: Self.write)
        let token = try Self.call(&state, [5])
        #expect(throws: ParleyError.self) { try state.begin([5]) }
        #expect(state.abandon(token) == nil)
        #expect(state.pendingCalls == 0)
        _ = try Self.call(&state, [5])
    }

    @Test("losing the connection fails the pending calls, new messages wait, and the next connection lets them go")
    func reconnect() async throws {
        let state = LockedState(JSONRPCConnectionState())
        guard case .wait = try state.withLock({ try $0.begin([]) }) else {
            Issue.record("a connection being opened makes messages wait")
            return
        }
        #expect(state.withLock { $0.opened(Self.write) }.resubscribe.isEmpty)
        #expect(state.withLock { $0.generation } == 1)
        let token = try state.withLock { try Self.call(&$0, [1]) }
        #expect(state.withLock { $0.connectionLost(reason: "gone") }.isEmpty, "not suspended yet: failed when it suspends")
        let error = await #expect(throws: ParleyError.self) {
            try await withCheckedThrowingContinuation { (continuation: JSONRPCConnectionState.AnswerContinuation) in
                if let now = state.withLock({ $0.suspend(token, continuation) }) {
                    continuation.resume(with: now.mapError { $0 as any Error })
                } else {
                    Issue.record("the call failed before it suspended: it should fail at once")
                }
            }
        }
        #expect(error?.kind == .transport)
        #expect(error?.message.contains("gone") == true)
        guard case .wait(let waiter) = try state.withLock({ try $0.begin([2]) }) else {
            Issue.record("after a drop, messages wait for the next connection")
            return
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            #expect(state.withLock { $0.waitForWriter(continuation, token: waiter, isCancelled: false) } == nil)
            let (waiters, _) = state.withLock { $0.opened(Self.write) }
            #expect(waiters.count == 1)
            for waiter in waiters { waiter.resume() }
        }
        #expect(state.withLock { $0.generation } == 2)
        #expect(state.withLock { $0.isOpen })
    }

    @Test("closing ends everything once: held notifications go on, subscriptions end, later messages fail")
    func close() throws {
        var state = JSONRPCConnectionState(writer: Self.write)
        let (_, subscription) = AsyncThrowingStream.makeStream(of: JSONRPCIncoming.self)
        _ = try state.addSubscription(.method("tick"), continuation: subscription)
        #expect(isHeld(state.notification(JSONRPCIncoming(method: "tick", params: [1]))))
        let closed = state.close(reason: "the peer left")
        let closing = try #require(closed)
        #expect(closing.held.map(\.method) == ["tick"])
        #expect(closing.subscriptions.count == 1)
        #expect(closing.failure.message.contains("the peer left"))
        #expect(state.close(reason: "again") == nil)
        guard case .closed(let reason) = try state.begin([1]) else {
            Issue.record("a closed channel refuses messages")
            return
        }
        #expect(reason == "the peer left")
        #expect(throws: ParleyError.self) {
            try state.addSubscription(.method("tick"), continuation: subscription)
        }
    }

    @Test("notifications: held while a subscription of their method awaits its key (up to the limit), then routed")
    func heldNotifications() throws {
        var state = JSONRPCConnectionState(writer: Self.write, maxHeld: 2)
        let (_, continuation) = AsyncThrowingStream.makeStream(of: JSONRPCIncoming.self)
        #expect(isIncoming(state.notification(JSONRPCIncoming(method: "tick", params: nil))), "no subscription yet")
        let id = try state.addSubscription(.parameter("subscription", of: "tick"), continuation: continuation)
        for key in ["s1", "other", "s1"] {
            _ = state.notification(JSONRPCIncoming(method: "tick", params: ["subscription": .string(key)]))
        }
        #expect(state.heldCount == 2, "the third is over the limit: to incoming")
        #expect(isIncoming(state.notification(JSONRPCIncoming(method: "log", params: nil))))
        let release = state.bind(id, key: "s1")
        #expect(release.routed.map(\.id) == [id, id])
        #expect(release.routed.map(\.notification.isGap) == [false, true], "the held one, then a gap for the one lost")
        #expect(release.unowned.count == 1, "held for a key that turned out to be another's")
        guard
            case .subscription(let owner, _) = state.notification(JSONRPCIncoming(method: "tick", params: ["subscription": "s1"]))
        else {
            Issue.record("a bound subscription gets its notifications")
            return
        }
        #expect(owner == id)
    }

    @Test("after a reconnect the subscriptions are issued again (watches are not), their keys unknown meanwhile")
    func resubscription() throws {
        var state = JSONRPCConnectionState()
        _ = state.opened(Self.write)
        let (_, first) = AsyncThrowingStream.makeStream(of: JSONRPCIncoming.self)
        let (_, watch) = AsyncThrowingStream.makeStream(of: JSONRPCIncoming.self)
        let subscription = try state.addSubscription(.method("tick"), subscribeCall: { "k2" }, continuation: first)
        let watched = try state.addSubscription(.method("$/progress"), key: "token", continuation: watch)
        _ = state.bind(subscription, key: "k1")
        _ = state.yield(JSONRPCIncoming(method: "tick", params: [41]), to: subscription)
        _ = state.connectionLost(reason: "dropped")
        let (_, again) = state.opened(Self.write)
        #expect(again == [subscription])
        #expect(state.key(of: subscription) == nil)
        #expect(state.key(of: watched) == "token")
        let resubscription = try #require(state.resubscription(of: subscription))
        #expect(resubscription.last?.params == [41])
        #expect(resubscription.gap.isGap)
        #expect(state.resubscription(of: watched) == nil)
        // The answer of a resubscription issued on a connection since replaced binds nothing.
        let issuedOn = state.generation
        _ = state.connectionLost(reason: "dropped again")
        _ = state.opened(Self.write)
        _ = state.bind(subscription, key: "stale", generation: issuedOn)
        #expect(state.key(of: subscription) == nil)
        _ = state.bind(subscription, key: "k3", generation: state.generation)
        #expect(state.key(of: subscription) == "k3")
    }

    @Test("a held overflow without a gap: within the limit, no gap marker is added")
    func noGapWithinLimit() throws {
        var state = JSONRPCConnectionState(writer: Self.write, maxHeld: 4)
        let (_, continuation) = AsyncThrowingStream.makeStream(of: JSONRPCIncoming.self)
        let id = try state.addSubscription(.parameter("subscription", of: "tick"), continuation: continuation)
        _ = state.notification(JSONRPCIncoming(method: "tick", params: ["subscription": "s1"]))
        let release = state.bind(id, key: "s1")
        #expect(release.routed.map(\.notification.isGap) == [false])
    }

    @Test("the peer's requests: at most the limit at once; a finished one frees its slot")
    func peerRequestSlots() {
        var state = JSONRPCConnectionState(writer: Self.write, maxPeerRequests: 2)
        let started = [state.peerRequestStarted(), state.peerRequestStarted(), state.peerRequestStarted()]
        #expect(started == [true, true, false])
        state.peerRequestFinished()
        #expect(state.peerRequests == 1)
        let again = state.peerRequestStarted()
        #expect(again)
        #expect(JSONRPCConnectionState.busyError(limit: 2).code == -32000)
    }

    private func isHeld(_ route: JSONRPCConnectionState.NotificationRoute) -> Bool {
        if case .held = route { true } else { false }
    }

    private func isIncoming(_ route: JSONRPCConnectionState.NotificationRoute) -> Bool {
        if case .incoming = route { true } else { false }
    }
}

@Suite("JSON-RPC frames read without decoding")
struct JSONRPCFrameTests {
    @Test(
        "answers and their ids; requests; malformed input",
        arguments: [
            (#"{"jsonrpc":"2.0","result":{"id":9,"method":"x"},"id":1}"#, JSONRPCFrame.answers([1])),
            (#" { "id" : "a\"b" , "error" : {} } "#, .answers(["a\"b"])),
            (#"{"\u0069d":3,"result":null}"#, .answers([3])),
            (#"{"id":1.0,"result":[]}"#, .answers([1])),
            (#"{"id":null,"error":{"code":-32700}}"#, .answers([])),
            (#"{"id":true,"result":1}"#, .answers([])),
            (#"[{"id":1,"result":1},5,{"id":"x","result":"}"}]"#, .answers([1, "x"])),
            (#"[]"#, .messages),
            (#"5"#, .messages),
            (#"{"id":+1,"result":1}"#, .answers([])),
            (#"{"id":01,"result":1}"#, .answers([])),
            (#"{"id":-0,"result":1}"#, .answers([0])),
            (#"{"jsonrpc":"2.0","method":"tick","params":{"id":1}}"#, .messages),
            (#"{"id":2,"me\u0074hod":"x"}"#, .messages),
            (#"[{"method":"a","id":1},{"id":2,"result":0}]"#, .messages),
            (#"garbage"#, .malformed),
            (#""#, .malformed),
            (#"{"id":1,"result":"#, .malformed),
            (#"[{"id":1,"result":1}"#, .malformed),
            (#"{"id":"unterminated}"#, .malformed),
        ]
    )
    func scan(_ message: String, _ expected: JSONRPCFrame) {
        #expect(JSONRPCFrame.scan(Data(message.utf8)) == expected, "\(message)")
    }

    @Test("a hostile nesting depth is scanned without recursion")
    func deepNesting() {
        let depth = 1_000_000
        let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(JSONRPCFrame.scan(Data(#"{"id":7,"result":\#(deep)}"#.utf8)) == .answers([7]))
        #expect(JSONRPCFrame.scan(Data(String(repeating: "[", count: depth).utf8)) == .malformed)
    }
}
