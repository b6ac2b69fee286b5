import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("JSONValue: literals, accessors, paths, conversions")
struct JSONValueTests {
    @Test("every kind of literal builds the matching case")
    func literals() throws {
        let value: JSONValue = ["newHeads", ["includeTransactions": true, "limit": 7], 0.5, nil, false]
        #expect(
            value
                == .array([
                    .string("newHeads"), .object(["includeTransactions": .bool(true), "limit": .int(7)]), .double(0.5), .null,
                    .bool(false),
                ])
        )
        let encoded = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: encoded) == value)
    }

    @Test("a key written twice in a literal keeps its last value instead of trapping")
    func duplicateKeys() {
        let value: JSONValue = ["a": 1, "a": 2]
        #expect(value == ["a": 2])
    }

    @Test("accessors answer for their own kind only; paths walk members and indices")
    func accessors() throws {
        let block = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(
                #"{"result":{"number":"0x1b4","transactions":[{"hash":"0xa","gas":21000,"price":1.5}],"final":true,"parent":null}}"#
                    .utf8
            )
        )
        #expect(block[path: "result", "transactions", 0, "hash"]?.stringValue == "0xa")
        #expect(block[path: "result", "transactions", 0, "gas"]?.intValue == 21000)
        #expect(block[path: "result", "transactions", 0, "gas"]?.doubleValue == 21000)
        #expect(block[path: "result", "transactions", 0, "price"]?.doubleValue == 1.5)
        #expect(block[path: "result", "transactions", 0, "price"]?.intValue == nil)
        #expect(block[path: "result", "final"]?.boolValue == true)
        #expect(block[path: "result", "parent"]?.isNull == true)
        #expect(block[path: "result", "transactions"]?.arrayValue?.count == 1)
        #expect(block["result"]?.objectValue?.keys.sorted() == ["final", "number", "parent", "transactions"])
        #expect(block[path: "result", "transactions", 3] == nil, "an index past the end")
        #expect(block[path: "result", "number", 0] == nil, "an index into a string")
        #expect(block[path: "missing", "deeper"] == nil)
        #expect(block["result"]?.boolValue == nil && block["result"]?.arrayValue == nil && block["result"]?.isNull == false)
    }

    @Test("to and from Codable values")
    func conversions() throws {
        struct Transaction: Codable, Equatable {
            let hash: String
            let gas: Int
        }
        let value = try JSONValue(encoding: Transaction(hash: "0xa", gas: 21000))
        #expect(value == ["hash": "0xa", "gas": 21000])
        #expect(try value.decode(as: Transaction.self) == Transaction(hash: "0xa", gas: 21000))
        let wrong: JSONValue = ["hash": 1]
        #expect(throws: DecodingError.self) { try wrong.decode(as: Transaction.self) }
    }
}

@Suite("ExplicitNull: a nil optional sent as null")
struct ExplicitNullTests {
    struct InitializeParams: Codable, Sendable, Equatable {
        @ExplicitNull var processId: Int?
        var rootUri: String?
    }

    @Test("nil encodes as null (a plain optional is left out); null, a value or a missing key decode")
    func encodesNull() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(InitializeParams(processId: nil, rootUri: nil)), as: UTF8.self)
                == #"{"processId":null}"#
        )
        #expect(
            String(decoding: try encoder.encode(InitializeParams(processId: 7, rootUri: "file:///")), as: UTF8.self)
                == #"{"processId":7,"rootUri":"file:\/\/\/"}"#
        )
        let decoder = JSONDecoder()
        #expect(try decoder.decode(InitializeParams.self, from: Data(#"{"processId":null}"#.utf8)).processId == nil)
        #expect(try decoder.decode(InitializeParams.self, from: Data(#"{"processId":42}"#.utf8)).processId == 42)
        #expect(try decoder.decode(InitializeParams.self, from: Data("{}".utf8)).processId == nil)
        #expect(throws: DecodingError.self) { try decoder.decode(InitializeParams.self, from: Data(#"{"processId":"x"}"#.utf8)) }
    }

    @Test("the server receives the key with null", arguments: TransportKind.allCases)
    func reachesTheServer(transport: TransportKind) async throws {
        struct Post: Endpoint {
            typealias Response = JSONValue
            var method: HTTPRequest.Method { .post }
            var path: Path { "/echo" }
            var body: RequestBody { .json(InitializeParams(processId: nil, rootUri: nil)) }
        }
        try await withDemoClient(transport) { client, _ in
            let echoed = try await client.send(Post())
            let body = try #require(echoed["body"]?.stringValue, "\(echoed)")
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)) == ["processId": nil])
        }
    }
}
