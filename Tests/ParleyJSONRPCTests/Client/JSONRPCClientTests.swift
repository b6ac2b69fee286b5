import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

@Suite("JSON-RPC client over HTTP")
struct JSONRPCHTTPTests {
    @Test("typed calls, named params, notifications and errors against the demo server", arguments: TransportKind.allCases)
    func calls(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/rpc")
            #expect(try await rpc.call(Subtract(params: [42, 23])) == 19)
            #expect(try await rpc.call(SubtractNamed(params: .init(minuend: 42, subtrahend: 23))) == 19)
            #expect(try await rpc.call(GetDataRPC()) == [.string("hello"), .int(5)])
            let dynamic = try await rpc.call(JSONRPCDynamicMethod("sum", params: .array([.int(1), .int(2), .int(4)])))
            #expect(dynamic == .int(7))
            try await rpc.notify(Update(params: [1, 2, 3]))

            let unknown = await expectParleyError(.jsonRPCError) { try await rpc.call(Unknown()) }
            #expect(unknown?.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)
            #expect(unknown?.description.contains("foobar") == true)

            let invalid = await expectParleyError(.jsonRPCError) { try await rpc.call(Subtract(params: [1])) }
            #expect(invalid?.jsonRPCError?.code == JSONRPCError.Code.invalidParams)

            struct Detail: Decodable, Equatable {
                let field: String
            }
            let failed = await expectParleyError(.jsonRPCError) {
                try await rpc.call(
                    Fail(params: .init(code: -32010, message: "Quota exceeded", data: .object(["field": .string("amount")])))
                )
            }
            let error = try #require(failed?.jsonRPCError)
            #expect(error.code == -32010)
            #expect(error.isServerError)
            #expect(try error.data(as: Detail.self) == Detail(field: "amount"))
            let undecodable = await expectParleyError(.decoding) { try error.data(as: [Int].self) }
            #expect(undecodable?.message.contains("-32010") == true)
        }
    }

    @Test("typed batches of any arity, matched by id; the throwing convenience", arguments: TransportKind.allCases)
    func batches(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/rpc", ids: JSONRPCUUIDIDs())
            let (sum, difference, data, unknown) = try await rpc.batch(
                Sum(params: [1, 2, 4]),
                Subtract(params: [42, 23]),
                GetDataRPC(),
                Unknown()
            )
            #expect(try sum.get() == 7)
            #expect(try difference.get() == 19)
            #expect(try data.get() == [.string("hello"), .int(5)])
            #expect(throws: ParleyError.self) { try unknown.get() }

            let (a, b) = try await rpc.batchValues(Sum(params: [1]), Sum(params: [2, 3]))
            #expect(a == 1 && b == 5)
            let failure = await expectParleyError(.jsonRPCError) { try await rpc.batchValues(Sum(params: [1]), Unknown()) }
            #expect(failure?.jsonRPCError?.code == -32601)

            let large = try await rpc.batch(
                Sum(params: [1]),
                Sum(params: [2]),
                Sum(params: [3]),
                Sum(params: [4]),
                Sum(params: [5]),
                Sum(params: [6]),
                Sum(params: [7]),
                Sum(params: [8]),
                Sum(params: [9]),
                Sum(params: [10]),
                Sum(params: [11])
            )
            #expect(try large.10.get() == 11)

            var dynamic = JSONRPCBatch()
            let slots = (0..<100).map { dynamic.call(Sum(params: [$0, 1])) }
            dynamic.notify(NotifyHello(params: [7]))
            let results = try await rpc.send(dynamic)
            for (index, slot) in slots.enumerated() { #expect(try results[slot].get() == index + 1) }

            var notifications = JSONRPCBatch()
            notifications.notify(NotifyHello(params: [1]))
            notifications.notify(Update(params: [2]))
            _ = try await rpc.send(notifications)  // HTTP 204, no answer expected

            await expectParleyError(.invalidRequest) { try await rpc.send(JSONRPCBatch()) }
        }
    }

    @Test("HTTP error statuses: with a JSON-RPC error body, and without", arguments: TransportKind.allCases)
    func httpErrors(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let withBody = JSONRPCClient(http: client, path: "/rpc/http-error/503")
            let error = await expectParleyError(.jsonRPCError) { try await withBody.call(Sum(params: [1])) }
            #expect(error?.jsonRPCError?.code == -32000)
            #expect(error?.status?.code == 503)

            let plainClient = JSONRPCClient(
                channel: JSONRPCHTTPChannel(client: client, path: Path(percentEncoded: "/rpc/http-error/500?plain=1"))
            )
            let status = await expectParleyError(.unacceptableStatus) { try await plainClient.call(Sum(params: [1])) }
            #expect(status?.status?.code == 500)
            #expect(status?.bodyExcerpt == "the JSON-RPC backend is down")

            let notFound = JSONRPCClient(http: client, path: "/no-such-rpc")
            await expectParleyError(.unacceptableStatus) { try await notFound.call(Sum(params: [1])) }
            // A notification answered with an HTTP error status fails too, with or without an error object.
            await expectParleyError(.unacceptableStatus) { try await notFound.notify(Update(params: [1])) }
            await expectParleyError(.unacceptableStatus) { try await withBody.notify(Update(params: [1])) }
            // Scalar params are refused before anything is sent.
            let scalar = await expectParleyError(.encoding) {
                try await withBody.call(JSONRPCDynamicMethod("sum", params: .int(1)))
            }
            #expect(scalar?.message.contains("array") == true)
        }
    }

    @Test("many concurrent calls over HTTP each get their own result")
    func concurrentCalls() async throws {
        let server = try await DemoServer.start()
        defer { Task { await server.stop() } }
        // 64 at once: 8 pooled connections each serve 8 in turn. AsyncHTTPClient bounds the wait for a pooled
        // connection by the connect timeout (10 s by default), which the suite's parallel 64 MiB transfers (sharing
        // two event-loop threads and two cooperative threads with this test) can outlast; this test is about
        // routing answers by id, so its own transport waits up to a minute. (Issue 6 decides the pool policy.)
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.timeout.connect = .seconds(60)
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let client = Client(baseURL: try #require(URL(string: server.baseURL)), transport: transport)
        defer { Task { try? await client.shutdown() } }
        do {
            let rpc = JSONRPCClient(http: client, path: "/rpc")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let value = try await rpc.call(EchoRPC(params: [.int(index)]))
                        #expect(value == .array([.int(index)]))
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

@Suite("JSON-RPC client: strict parsing of answers")
struct JSONRPCStrictParsingTests {
    func client(answering text: String) -> JSONRPCClient {
        JSONRPCClient(channel: ScriptedChannel(text))
    }

    @Test(
        "single-call answers that break the protocol each get their own error",
        arguments: [
            (#"{"jsonrpc": "1.0", "result": 1, "id": 1}"#, "instead of \"2.0\""),
            (#"{"result": 1, "id": 1}"#, "no \"jsonrpc\""),
            (#"{"jsonrpc": "2.0", "result": 1, "error": {"code": 1, "message": "x"}, "id": 1}"#, "both"),
            (#"{"jsonrpc": "2.0", "id": 1}"#, "neither"),
            (#"{"jsonrpc": "2.0", "error": {"code": "x", "message": "y"}, "id": 1}"#, "malformed error object"),
            (#"{"jsonrpc": "2.0", "error": {"message": "y"}, "id": 1}"#, "malformed error object"),
            (#"{"jsonrpc": "2.0", "result": 1, "id": "1"}"#, "the id \"1\""),
            (#"{"jsonrpc": "2.0", "result": 1, "id": 2}"#, "the id 2"),
            (#"{"jsonrpc": "2.0", "result": 1}"#, "no id"),
            (#"{"jsonrpc": "2.0", "result": 1, "id": true}"#, "neither an integer nor a string"),
            (#"[{"jsonrpc": "2.0", "result": 1, "id": 1}]"#, "array"),
            (#"<html>oops</html>"#, "not JSON"),
            ("", "not JSON"),
        ]
    )
    func protocolViolations(_ answer: String, _ expected: String) async throws {
        let error = await expectParleyError(.jsonRPCProtocol) { try await client(answering: answer).call(Sum(params: [1])) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
    }

    @Test("an error with a null id says the server could not read the request")
    func nullIDError() async throws {
        let error = await expectParleyError(.jsonRPCError) {
            try await client(answering: #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)
                .call(Sum(params: [1]))
        }
        #expect(error?.jsonRPCError?.code == JSONRPCError.Code.parseError)
        #expect(error?.message.contains("could not read") == true)
    }

    @Test("a result of the wrong type is a decoding error naming the path")
    func wrongResultType() async throws {
        let error = await expectParleyError(.decoding) {
            try await client(answering: #"{"jsonrpc": "2.0", "result": {"a": [1, "x"]}, "id": 1}"#).call(DynamicTyped())
        }
        #expect(error?.codingPath == "result.a[1]")
        struct DynamicTyped: JSONRPCMethod {
            struct Result: Decodable, Sendable { let a: [Int] }
            static let name = "x"
        }
    }

    @Test("batch answers: missing, duplicated and unknown ids, one error object for the whole batch")
    func batchViolations() async throws {
        // id 1 answered, id 2 missing, id 3 answered twice, id 9 unknown.
        let mixed = client(
            answering:
                #"[{"jsonrpc": "2.0", "result": 1, "id": 1},{"jsonrpc": "2.0", "result": 3, "id": 3},{"jsonrpc": "2.0", "result": 3, "id": 3},{"jsonrpc": "2.0", "result": 9, "id": 9}]"#
        )
        let (one, two, three) = try await mixed.batch(Sum(params: [1]), Sum(params: [2]), Sum(params: [3]))
        #expect(try one.get() == 1, "an answered element keeps its result")
        guard case .failure(let missing) = two, case .failure(let twice) = three else {
            Issue.record("expected failures for ids 2 and 3")
            return
        }
        #expect(missing.kind == .jsonRPCProtocol && missing.message.contains("no answer") && missing.message.contains("9"))
        #expect(twice.kind == .jsonRPCProtocol && twice.message.contains("2 times"))

        var batch = JSONRPCBatch()
        let slot = batch.call(Sum(params: [1]))
        let results = try await client(
            answering: #"[{"jsonrpc": "2.0", "result": 1, "id": 1},{"jsonrpc": "2.0", "result": 9, "id": 9}]"#
        ).send(batch)
        #expect(try results[slot].get() == 1)
        #expect(results.unmatched.count == 1)
        #expect(results.unmatched.first?.message.contains("9") == true)

        let whole = client(answering: #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)
        let (x, y) = try await whole.batch(Sum(params: [1]), Sum(params: [2]))
        for result in [x, y] {
            guard case .failure(let failure) = result else {
                Issue.record("expected the whole batch to fail")
                continue
            }
            #expect(failure.jsonRPCError?.code == -32700)
            #expect(failure.message.contains("whole batch"))
        }

        await expectParleyError(.jsonRPCProtocol) { try await self.client(answering: "nope").batch(Sum(params: [1])) }
    }

    @Test("ids: sequential ids never repeat under concurrency; 1 and \"1\" differ")
    func ids() async throws {
        let generator = JSONRPCSequentialIDs()
        let all = await withTaskGroup(of: [JSONRPCID].self) { group in
            for _ in 0..<8 { group.addTask { (0..<1000).map { _ in generator.next() } } }
            var all: [JSONRPCID] = []
            for await part in group { all += part }
            return all
        }
        #expect(Set(all).count == 8000)
        #expect(JSONRPCID.number(1) != JSONRPCID.string("1"))
        let fixed = JSONRPCClient(
            channel: ScriptedChannel(#"{"jsonrpc": "2.0", "result": 5, "id": "abc"}"#),
            ids: JSONRPCCustomIDs { "abc" }
        )
        #expect(try await fixed.call(Sum(params: [5])) == 5)
        let duplicate = await expectParleyError(.invalidRequest) { try await fixed.batch(Sum(params: [1]), Sum(params: [2])) }
        #expect(duplicate?.message.contains("twice") == true)
    }
}
