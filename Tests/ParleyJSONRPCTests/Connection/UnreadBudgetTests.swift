import Foundation
import Parley
import Testing

@testable import ParleyJSONRPC

/// The bounds on unread notifications: a count and a byte budget, for `incoming` and for each subscription, fed the
/// messages a reading loop hands the connection.
@Suite("JSON-RPC unread notifications: count and byte budgets")
struct UnreadBudgetTests {
    /// A notification of `method` whose message is about `size` bytes.
    private static func message(_ method: String, _ number: Int, size: Int, key: String = "s1") -> Data {
        let padding = String(repeating: "x", count: max(0, size - 90))
        return Data(
            #"{"jsonrpc":"2.0","method":"\#(method)","params":{"subscription":"\#(key)","n":\#(number),"pad":"\#(padding)"}}"#
                .utf8
        )
    }

    private static let write: JSONRPCConnection.Writer = { _ in }

    @Test("incoming keeps the newest within the byte budget (a notification weighs its message), the oldest dropped")
    func incomingBytes() async throws {
        let multiplexer = JSONRPCConnection(router: nil, writer: Self.write, maxUnread: 100, maxUnreadBytes: 1000)
        for number in 0..<10 { _ = multiplexer.inbound.route(Self.message("log", number, size: 300), write: Self.write) }
        multiplexer.close(reason: "done")
        var numbers: [Int] = []
        for await notification in multiplexer.incoming { numbers.append(try #require(notification.params?["n"]?.intValue)) }
        #expect(numbers == [7, 8, 9], "three messages of about 300 bytes fit in 1000")
    }

    @Test("incoming keeps the newest within the count; one message larger than the byte budget is kept alone")
    func incomingCountAndLargeMessage() async throws {
        let counted = JSONRPCConnection(router: nil, writer: Self.write, maxUnread: 4, maxUnreadBytes: 1 << 20)
        for number in 0..<10 { _ = counted.inbound.route(Self.message("log", number, size: 100), write: Self.write) }
        counted.close(reason: "done")
        var numbers: [Int] = []
        for await notification in counted.incoming { numbers.append(try #require(notification.params?["n"]?.intValue)) }
        #expect(numbers == [6, 7, 8, 9])
        let large = JSONRPCConnection(router: nil, writer: Self.write, maxUnread: 100, maxUnreadBytes: 1000)
        _ = large.inbound.route(Self.message("log", 1, size: 200), write: Self.write)
        _ = large.inbound.route(Self.message("log", 2, size: 5000), write: Self.write)
        large.close(reason: "done")
        var kept: [Int] = []
        for await notification in large.incoming { kept.append(try #require(notification.params?["n"]?.intValue)) }
        #expect(kept == [2])
    }

    @Test("a notification read as it comes frees its bytes: a reader that keeps up loses nothing")
    func readerKeepsUp() async throws {
        let multiplexer = JSONRPCConnection(router: nil, writer: Self.write, maxUnread: 100, maxUnreadBytes: 1000)
        var iterator = multiplexer.incoming.makeAsyncIterator()
        for number in 0..<50 {
            _ = multiplexer.inbound.route(Self.message("log", number, size: 300), write: Self.write)
            let notification = try #require(await iterator.next())
            #expect(notification.params?["n"]?.intValue == number)
        }
        multiplexer.close(reason: "done")
        #expect(await iterator.next() == nil)
    }

    @Test("a subscription whose consumer leaves more than the byte budget unread ends with an error that says so")
    func subscriptionBytes() async throws {
        let multiplexer = JSONRPCConnection(router: nil, writer: Self.write, maxUnread: 100, maxUnreadBytes: 1000)
        let subscription = try multiplexer.subscriptions.watch(.parameter("subscription", of: "tick"), key: "s1")
        for number in 0..<3 { _ = multiplexer.inbound.route(Self.message("tick", number, size: 300), write: Self.write) }
        var iterator = subscription.makeAsyncIterator()
        #expect(try await iterator.next()?.params?["n"]?.intValue == 0, "within the budget: nothing lost")
        for number in 3..<8 { _ = multiplexer.inbound.route(Self.message("tick", number, size: 300), write: Self.write) }
        var received: [Int] = []
        do {
            while let notification = try await iterator.next() {
                received.append(try #require(notification.params?["n"]?.intValue))
            }
            Issue.record("the subscription ended without an error")
        } catch let error as ParleyError {
            #expect(error.kind == .transport)
            #expect(error.message.contains("fell behind"), "\(error.message)")
        }
        #expect(received == Array(received.sorted()), "in order, up to where it ended: \(received)")
        multiplexer.close(reason: "done")
    }

    @Test("resubscribing for a connection already replaced issues nothing: the newer connection issues them")
    func resubscribeForReplacedConnection() async {
        let multiplexer = JSONRPCConnection(router: nil)
        let (generation, _) = multiplexer.opened(Self.write)
        multiplexer.connectionLost(reason: "dropped")
        _ = multiplexer.opened(Self.write)
        let (count, failed) = await multiplexer.subscriptions.resubscribe([1, 2, 3], generation: generation)
        #expect(count == 0 && failed == 3)
        multiplexer.close(reason: "done")
    }

    @Test("the unread sizes follow the stream: what it no longer holds was read, oldest first")
    func unreadSizes() {
        var sizes = UnreadSizes()
        sizes.yielded(100, held: 1)
        sizes.yielded(200, held: 2)
        #expect(sizes.bytes == 300)
        sizes.yielded(50, held: 1)
        #expect(sizes.bytes == 50, "the two older ones were read")
        sizes.yielded(10, held: 0)
        #expect(sizes.bytes == 0, "handed straight to a waiting reader")
    }
}
