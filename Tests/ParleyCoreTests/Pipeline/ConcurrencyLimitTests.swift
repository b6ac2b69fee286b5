import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Counts requests in flight below it and remembers the most seen at once.
struct InFlightCounter: ClientMiddleware {
    let state = LockedBox<(now: Int, most: Int)>((0, 0))
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        state.mutate {
            $0.now += 1; $0.most = max($0.most, $0.now)
        }
        defer { state.mutate { $0.now -= 1 } }
        return try await next(request, body, baseURL)
    }
}

@Suite("Concurrency limit", .timeLimit(.minutes(1)))
struct ConcurrencyLimitTests {
    @Test("Calls beyond the limit wait for a slot instead of failing", arguments: TransportKind.allCases)
    func waits(transport: TransportKind) async throws {
        let counter = InFlightCounter()
        let configuration = Client.Configuration(maxConcurrentRequests: 2)
        try await withDemoClient(transport, middlewares: [counter], configuration: configuration) { client, _ in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.send(Get<[String: Int]>(path: "/slow", query: ["ms": "50"]))["slept"] ?? -1 }
                }
                for try await slept in group { #expect(slept == 50) }
            }
            #expect(counter.state.value.most == 2)
        }
    }

    @Test("A call waiting for a slot can be cancelled", arguments: TransportKind.allCases)
    func cancelWhileWaiting(transport: TransportKind) async throws {
        let configuration = Client.Configuration(maxConcurrentRequests: 1)
        try await withDemoClient(transport, configuration: configuration) { client, _ in
            // The streamed response holds the only slot until its body is dropped.
            let holder = try await client.stream(GetData(path: "/hang", query: ["id": UUID().uuidString]))
            let flaky = Flaky(failures: 0)
            let waiter = Task { try await client.send(flaky) }
            waiter.cancel()
            let result = await waiter.result
            if case .failure(let error as ParleyError) = result {
                #expect(error.kind == .cancelled)
            } else {
                Issue.record("expected a cancelled call, got \(result)")
            }
            _ = holder
            // Once the slot is free again, the server has still never seen the cancelled call.
            let unrelated = Client(baseURL: client.baseURL, transport: client.transport)
            let count = try await unrelated.send(FlakyCount(key: flaky.key))
            #expect(count.attempts == 0)
        }
    }

    @Test("A slot comes back when a streamed body is dropped unread")
    func droppedBodyReleases() async throws {
        let configuration = Client.Configuration(maxConcurrentRequests: 1)
        try await withDemoClient(.asyncHTTPClient, configuration: configuration) { client, _ in
            for _ in 0..<3 {
                let streamed = try await client.stream(GetData(path: "/bytes", query: ["n": "100000"]))
                #expect(streamed.response.status == .ok)
            }
            let got1 = try await client.send(GetText(path: "/text"))
            #expect(got1 == "hello, parley")
        }
    }
}
