import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import Testing

@testable import ParleyJSONRPC
@testable import ParleyTestSupport

/// Counts the requests a client sends.
private final class RequestCounter: ClientMiddleware, Sendable {
    private let count = LockedState(0)
    var value: Int { count.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        count.withLock { $0 += 1 }
        return try await next(request, body, baseURL)
    }
}

@Suite(
    "Independent peer: automatic batching (json-rpc)",
    .enabled(if: JSONRPCPeer.url != nil, "scripts/test starts peers/jsonrpc_peer.py and sets PARLEY_JSONRPC_PEER_URL")
)
struct JSONRPCBatchingPeerTests {
    private func rpc(window: Duration, maxBatchSize: Int) throws -> (JSONRPCClient, RequestCounter) {
        let counter = RequestCounter()
        let client = Client(
            baseURL: try #require(JSONRPCPeer.url),
            transport: AsyncHTTPClientTransport.shared,
            middlewares: [counter]
        )
        let channel = JSONRPCBatchingChannel(JSONRPCHTTPChannel(client: client), window: window, maxBatchSize: maxBatchSize)
        return (JSONRPCClient(channel: channel), counter)
    }

    @Test("20 concurrent calls with a batch size of 10 go out as 2 POSTs; each result and error is its own")
    func sizeLimit() async throws {
        let (rpc, counter) = try rpc(window: .seconds(30), maxBatchSize: 10)
        let results = await withTaskGroup(of: (Int, Result<Int, ParleyError>).self) { group in
            for index in 0..<20 {
                group.addTask {
                    if index == 7 {
                        do throws(ParleyError) {
                            return (index, .success(try await rpc.call(PeerQuotaFail())))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                    do throws(ParleyError) {
                        return (index, .success(try await rpc.call(Sum(params: [index, 1000]))))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [Int: Result<Int, ParleyError>] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
        #expect(counter.value == 2)
        for index in 0..<20 where index != 7 { #expect(try results[index]?.get() == index + 1000) }
        guard case .failure(let error)? = results[7] else {
            Issue.record("the failing call succeeded")
            return
        }
        #expect(error.kind == .jsonRPCError)
        #expect(error.jsonRPCError?.code == -32010)
    }

    @Test("a lone call goes out when its window ends, as a plain call; a notification rides along with calls")
    func windowAndNotifications() async throws {
        let (rpc, counter) = try rpc(window: .milliseconds(5), maxBatchSize: 2)
        #expect(try await rpc.call(Sum(params: [1, 2])) == 3)
        #expect(counter.value == 1)
        // A window longer than the test: the notification and the call leave together because they fill a batch of
        // two, however late the second of them is queued. Sent apart, they would be two POSTs.
        let (full, fullCounter) = try self.rpc(window: .seconds(30), maxBatchSize: 2)
        let marker = Int.random(in: 1_000_000...9_999_999)
        async let notified: Void = full.notify(NotifyHello(params: [marker]))
        async let sum = full.call(Sum(params: [4, 5]))
        try await notified
        #expect(try await sum == 9)
        #expect(fullCounter.value == 1)
        #expect(try await rpc.call(PeerReceived(marker)) == [["notify_hello", [.int(marker)]]])
        #expect(counter.value == 2)
    }

    @Test("a call cancelled before its batch leaves is taken out of it; the others are answered")
    func cancelledBeforeSending() async throws {
        let (rpc, counter) = try rpc(window: .seconds(30), maxBatchSize: 2)
        let cancelled = Task { try await rpc.call(Sum(params: [1, 1])) }
        cancelled.cancel()
        await expectParleyError(.cancelled) { _ = try await cancelled.value }
        async let a = rpc.call(Sum(params: [2, 2]))
        async let b = rpc.call(Sum(params: [3, 3]))
        #expect(try await a == 4)
        #expect(try await b == 6)
        #expect(counter.value == 1)
    }

    @Test("the array splitter keeps each element's bytes, nested arrays and strings with brackets included")
    func splitter() {
        let data = Data(#" [ {"id":1,"result":[1,[2]]} , {"id":"a]","result":"x,\"]"}, 12345678901234567890123 ] "#.utf8)
        let elements = JSONRPCFrame.elements(data)?.map { String(decoding: $0, as: UTF8.self) }
        #expect(elements == [#"{"id":1,"result":[1,[2]]}"#, #"{"id":"a]","result":"x,\"]"}"#, "12345678901234567890123"])
        #expect(JSONRPCFrame.elements(Data(#"{"id":1}"#.utf8)) == nil)
        #expect(JSONRPCFrame.elements(Data("[1,2".utf8)) == nil)
        #expect(JSONRPCFrame.elements(Data("[]".utf8)) == [])
    }
}
