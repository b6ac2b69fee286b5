import Foundation
import InMemoryTracing
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import Testing
import Tracing

@testable import ParleyTestSupport

/// `limited(key, failures)` on the peer: `-32005` to the first `failures` calls with `key`; a read, so repeatable.
private struct Limited: JSONRPCMethod {
    struct Params: Encodable, Sendable {
        let key: String
        let failures: Int
    }
    struct Result: Decodable, Sendable, Equatable {
        let key: String
        let attempt: Int
    }
    static let name = "limited"
    let params: Params
    var isRepeatable: Bool
}

/// `attempts(key)` on the peer: the requests it saw for `key`.
private struct Attempts: JSONRPCMethod {
    typealias Result = Int
    static let name = "attempts"
    let params: [String]
}

@Suite(
    "Independent peer: method-aware JSON-RPC over HTTP (json-rpc wrapper answering -32005, 429 and 503)",
    .enabled(if: JSONRPCPeer.url != nil, "scripts/test starts peers/jsonrpc_peer.py and sets PARLEY_JSONRPC_PEER_URL")
)
struct JSONRPCPeerRetryTests {
    static let fast = JSONRPCRetryPolicy(
        maxAttempts: 3,
        backoff: JSONRPCReconnectPolicy(initialDelay: .milliseconds(10), maxDelay: .milliseconds(50))
    )

    private func key(_ name: String) -> String { "\(name)-\(UUID().uuidString)" }

    private func rpc(
        path: Path = "",
        middlewares: [any ClientMiddleware] = [],
        retry: JSONRPCRetryPolicy? = fast
    ) throws -> JSONRPCClient {
        let client = Client(
            baseURL: try #require(JSONRPCPeer.url),
            transport: AsyncHTTPClientTransport.shared,
            middlewares: middlewares
        )
        return JSONRPCClient(http: client, path: path, retry: retry)
    }

    @Test("a repeatable call answered -32005 is sent again until it succeeds; one that is not repeatable fails at once")
    func errorCodeRetry() async throws {
        let rpc = try rpc()
        let read = key("read")
        #expect(
            try await rpc.call(Limited(params: .init(key: read, failures: 2), isRepeatable: true)) == .init(key: read, attempt: 3)
        )
        let write = key("write")
        let failure = await expectParleyError(.jsonRPCError) {
            try await rpc.call(Limited(params: .init(key: write, failures: 2), isRepeatable: false))
        }
        #expect(failure?.jsonRPCError?.code == -32005)
        #expect(try await rpc.call(Attempts(params: ["limited:\(write)"])) == 1)
        // Out of attempts: the last error.
        let stubborn = key("stubborn")
        let last = await expectParleyError(.jsonRPCError) {
            try await rpc.call(Limited(params: .init(key: stubborn, failures: 5), isRepeatable: true))
        }
        #expect(last?.jsonRPCError?.data == ["attempt": 3])
    }

    @Test("a batch sends again only its failed repeatable calls")
    func batchRetriesItsFailedRepeatableCalls() async throws {
        let rpc = try rpc()
        let (read, write, steady) = (key("batch-read"), key("batch-write"), key("batch-steady"))
        let (a, b, c) = try await rpc.batch(
            Limited(params: .init(key: read, failures: 1), isRepeatable: true),
            Limited(params: .init(key: write, failures: 1), isRepeatable: false),
            Limited(params: .init(key: steady, failures: 0), isRepeatable: true)
        )
        #expect(try a.get() == .init(key: read, attempt: 2))
        #expect((try? b.get()) == nil)
        #expect(try c.get() == .init(key: steady, attempt: 1))
        let (readAttempts, writeAttempts, steadyAttempts) = try await rpc.batchValues(
            Attempts(params: ["limited:\(read)"]),
            Attempts(params: ["limited:\(write)"]),
            Attempts(params: ["limited:\(steady)"])
        )
        #expect(readAttempts == 2)
        #expect(writeAttempts == 1)
        #expect(steadyAttempts == 1)
    }

    @Test("HTTP 429 and 503: the client's retry middleware repeats a repeatable call, not another", arguments: [429, 503])
    func statusRetry(status: Int) async throws {
        let retry = RetryMiddleware(RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10)))
        let repeatable = key("status-read")
        let rpc = try rpc(path: "/status/\(status)/2/\(repeatable)", middlewares: [retry], retry: nil)
        #expect(
            try await rpc.call(Limited(params: .init(key: repeatable, failures: 0), isRepeatable: true))
                == .init(key: repeatable, attempt: 1)
        )
        let once = key("status-write")
        let failing = try self.rpc(path: "/status/\(status)/2/\(once)", middlewares: [retry], retry: nil)
        let failure = await expectParleyError(.unacceptableStatus) {
            try await failing.call(Limited(params: .init(key: once, failures: 0), isRepeatable: false))
        }
        #expect(failure?.status?.code == status)
        let counts = try self.rpc(retry: nil)
        #expect(try await counts.call(Attempts(params: ["status:\(repeatable)"])) == 3)
        #expect(try await counts.call(Attempts(params: ["status:\(once)"])) == 1)
    }

    @Test("spans: one per call named after the method, with rpc.* attributes, the HTTP request's span its child")
    func spans() async throws {
        let tracer = W3CInMemoryTracer()
        let client = Client(
            baseURL: try #require(JSONRPCPeer.url),
            transport: AsyncHTTPClientTransport.shared,
            requestMiddlewares: [.tracing(tracer: tracer)]
        )
        let rpc = JSONRPCClient(
            http: client,
            ids: JSONRPCListedIDs([7, 8], then: JSONRPCSequentialIDs(startingAt: 100)),
            tracer: tracer
        )
        #expect(try await rpc.call(Sum(params: [1, 2])) == 3)
        await expectParleyError(.jsonRPCError) { try await rpc.call(PeerQuotaFail()) }
        let spans = tracer.finishedSpans
        let sum = try #require(spans.first { $0.operationName == "sum" })
        #expect(sum.kind == .client)
        #expect(sum.attributes["rpc.system"]?.toSpanAttribute() == "jsonrpc")
        #expect(sum.attributes["rpc.method"]?.toSpanAttribute() == "sum")
        #expect(sum.attributes["rpc.jsonrpc.request_id"]?.toSpanAttribute() == "7")
        #expect(sum.attributes["rpc.jsonrpc.version"]?.toSpanAttribute() == "2.0")
        let http = try #require(
            spans.first { $0.operationName == "POST" && $0.attributes["parley.endpoint"]?.toSpanAttribute() == "sum" }
        )
        #expect(http.context.inMemorySpanContext?.parentSpanID == sum.context.inMemorySpanContext?.spanID)
        #expect(http.context.inMemorySpanContext?.traceID == sum.context.inMemorySpanContext?.traceID)
        let fail = try #require(spans.first { $0.operationName == "fail" })
        #expect(fail.attributes["rpc.jsonrpc.error_code"]?.toSpanAttribute() == -32010)
        #expect(fail.attributes["rpc.jsonrpc.error_message"]?.toSpanAttribute() == "Quota exceeded")
        #expect(fail.status?.code == .error)
    }
}
