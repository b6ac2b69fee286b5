import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// Every example of the specification's "Examples" section, both ways.
@Suite("JSON-RPC 2.0 specification examples")
struct JSONRPCSpecExamplesTests {
    /// (request, the specified response or nil for none).
    static let examples: [(String, String?)] = [
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
            #"{"jsonrpc": "2.0", "result": 19, "id": 1}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
            #"{"jsonrpc": "2.0", "result": -19, "id": 2}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
            #"{"jsonrpc": "2.0", "result": 19, "id": 3}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
            #"{"jsonrpc": "2.0", "result": 19, "id": 4}"#
        ),
        (#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#, nil),
        (#"{"jsonrpc": "2.0", "method": "foobar"}"#, nil),
        (
            #"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
            #"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
            #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#
        ),
        (
            #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#
        ),
        (
            #"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]"#,
            #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#
        ),
        ("[]", #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#),
        ("[1]", #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#),
        (
            "[1,2,3]",
            #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#
        ),
        (
            #"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},{"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},{"foo": "boo"},{"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},{"jsonrpc": "2.0", "method": "get_data", "id": "9"}]"#,
            #"[{"jsonrpc": "2.0", "result": 7, "id": "1"},{"jsonrpc": "2.0", "result": 19, "id": "2"},{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},{"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}]"#
        ),
        (
            #"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"#,
            nil
        ),
    ]

    /// The response with `data` dropped from error objects: the specification leaves `data` to the server.
    static func comparable(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): return .array(elements.map(comparable))
        case .object(var members):
            if case .object(var error)? = members["error"] {
                error["data"] = nil
                members["error"] = .object(error)
            }
            return .object(members)
        default: return value
        }
    }

    @Test("the router answers every example as specified", arguments: 0..<examples.count)
    func routerAnswers(_ index: Int) async throws {
        let (request, expected) = Self.examples[index]
        let answer = await DemoServer.jsonRPCRouter().handle(Data(request.utf8))
        guard let expected else {
            #expect(answer == nil, "expected no answer, got \(answer.map { String(decoding: $0, as: UTF8.self) } ?? "")")
            return
        }
        let got = try JSONDecoder().decode(JSONValue.self, from: try #require(answer))
        #expect(Self.comparable(got) == (try json(expected)))
    }

    @Test("the demo server answers every example over HTTP as specified", arguments: 0..<examples.count)
    func demoServerAnswers(_ index: Int) async throws {
        let (request, expected) = Self.examples[index]
        try await withDemoClient(.asyncHTTPClient) { client, _ in
            struct Post: Endpoint {
                typealias Response = Data
                let text: String
                var method: HTTPRequest.Method { .post }
                var path: Path { "/rpc" }
                var body: RequestBody { .bytes(Data(text.utf8), contentType: "application/json") }
            }
            let (data, head) = try await client.response(for: Post(text: request))
            if let expected {
                #expect(head.status == .ok)
                #expect(Self.comparable(try JSONDecoder().decode(JSONValue.self, from: data)) == (try json(expected)))
            } else {
                #expect(head.status == .noContent)
                #expect(data.isEmpty)
            }
        }
    }

    @Test("the client sends the specified requests and reads the specified responses")
    func clientReadsSpecifiedResponses() async throws {
        let channel = ScriptedChannel { message in
            guard let request = try? JSONDecoder().decode(JSONValue.self, from: message) else { return nil }
            let id = request["id"] ?? .null
            switch (request["method"], request["params"]) {
            case (.string("subtract")?, .array([.int(42), .int(23)])?):
                return Data(#"{"jsonrpc": "2.0", "result": 19, "id": \#(id)}"#.utf8)
            case (.string("subtract")?, .array([.int(23), .int(42)])?):
                return Data(#"{"jsonrpc": "2.0", "result": -19, "id": \#(id)}"#.utf8)
            case (.string("subtract")?, .object?): return Data(#"{"jsonrpc": "2.0", "result": 19, "id": \#(id)}"#.utf8)
            default:
                return Data(#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": \#(id)}"#.utf8)
            }
        }
        let rpc = JSONRPCClient(channel: channel)
        #expect(try await rpc.call(Subtract(params: [42, 23])) == 19)
        #expect(try await rpc.call(Subtract(params: [23, 42])) == -19)
        #expect(try await rpc.call(SubtractNamed(params: .init(minuend: 42, subtrahend: 23))) == 19)
        try await rpc.notify(Update(params: [1, 2, 3, 4, 5]))
        let error = await expectParleyError(.jsonRPCError) { try await rpc.call(Unknown()) }
        #expect(error?.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)
        #expect(error?.jsonRPCError?.message == "Method not found")

        let sent = channel.sent
        #expect(sent[0] == (try json(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#)))
        #expect(
            sent[2]
                == (try json(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 3}"#))
        )
        #expect(sent[3] == (try json(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#)))
        #expect(
            sent[4] == (try json(#"{"jsonrpc": "2.0", "method": "foobar", "id": 4}"#)),
            "no params member when there are none"
        )
    }

    @Test("the client reads the specified batch response, in any order, notifications without a slot")
    func clientReadsSpecifiedBatch() async throws {
        let channel = ScriptedChannel(
            #"[{"jsonrpc": "2.0", "result": ["hello", 5], "id": 4},{"jsonrpc": "2.0", "result": 7, "id": 1},{"jsonrpc": "2.0", "result": 19, "id": 2},{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": 3}]"#
        )
        let rpc = JSONRPCClient(channel: channel)
        var batch = JSONRPCBatch()
        let sum = batch.call(Sum(params: [1, 2, 4]))
        batch.notify(NotifyHello(params: [7]))
        let subtract = batch.call(Subtract(params: [42, 23]))
        let unknown = batch.call(Unknown())
        let data = batch.call(GetDataRPC())
        let results = try await rpc.send(batch)
        #expect(try results[sum].get() == 7)
        #expect(try results[subtract].get() == 19)
        #expect(try results[data].get() == [.string("hello"), .int(5)])
        guard case .failure(let failure) = results[unknown] else {
            Issue.record("the unknown method succeeded")
            return
        }
        #expect(failure.jsonRPCError?.code == -32601)
        #expect(results.unmatched.isEmpty)
        let sent = try #require(channel.sent.first)
        #expect(sent[1] == (try json(#"{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}"#)))
        #expect(sent[0]?["id"] == .int(1))
    }

    @Test("an all-notification batch expects no answer")
    func allNotificationBatch() async throws {
        let channel = ScriptedChannel { _ in
            Issue.record("an answer was asked for")
            return nil
        }
        var batch = JSONRPCBatch()
        batch.notify(NotifyHello(params: [7]))
        batch.notify(Update(params: [1]))
        let results = try await JSONRPCClient(channel: channel).send(batch)
        #expect(results.unmatched.isEmpty)
        #expect(channel.sent.count == 1)
    }
}
