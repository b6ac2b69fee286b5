import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Response decoding")
struct ResponseDecodingTests {
    @Test("JSON Decodable, with the client's JSONDecoder", arguments: TransportKind.allCases)
    func json(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let sent9 = try await client.send(GetUser(id: 1))
            #expect(sent9 == User(id: 1, name: "Ada Lovelace", email: "ada@example.com"))
            let users = try await client.send(ListUsers())
            #expect(users.map(\.id) == [1, 2])

            let snake = JSONDecoder()
            snake.keyDecodingStrategy = .convertFromSnakeCase
            let configured = Client(
                baseURL: client.baseURL,
                transport: client.transport,
                configuration: .init(jsonDecoder: snake)
            )
            struct Echoed: Decodable, Sendable { let bodyLength: Int }
            let echoed = try await configured.send(Get<Echoed>(path: "/echo"))
            #expect(echoed.bodyLength == 0)
        }
    }

    @Test("String is UTF-8; a non-UTF-8 body is a decoding error", arguments: TransportKind.allCases)
    func string(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let sent25 = try await client.send(GetText(path: "/text"))
            #expect(sent25 == "hello, parley")
            let error = await expectParleyError(.decoding) { try await client.send(GetText(path: "/invalid-utf8")) }
            #expect(error?.description.contains("not valid UTF-8") == true)
        }
    }

    @Test("raw bytes, Void and response(for:)", arguments: TransportKind.allCases)
    func bytesAndVoid(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let data = try await client.send(GetData(path: "/bytes", query: ["n": "1000"]))
            #expect(data.count == 1000)
            #expect(data[300] == UInt8(300 % 251))

            // Void discards the body without buffering it: a body 5× the buffering limit is fine.
            let limited = Client(
                baseURL: client.baseURL,
                transport: client.transport,
                configuration: .init(maxResponseBodySize: 1_000_000)
            )
            try await limited.send(GetVoid(path: "/bytes", query: ["n": "5000000", "chunked": "true"]))
            await expectParleyError(.bodyTooLarge) {
                try await limited.send(GetData(path: "/bytes", query: ["n": "5000000", "chunked": "true"]))
            }
            let (_, head) = try await client.response(for: DeleteUser(id: 2))
            #expect(head.status.code == 204)
            let (users, listHead) = try await client.response(for: ListUsers())
            #expect(users.map(\.id) == [1])
            #expect(listHead.headerFields[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test("Optional is nil exactly when the body is empty", arguments: TransportKind.allCases)
    func optional(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let sent50 = try await client.send(GetOptional(path: "/empty"))
            #expect(sent50 == nil)
            let sent51 = try await client.send(GetOptional(path: "/no-content"))
            #expect(sent51 == nil)
            let sent52 = try await client.send(GetOptional(path: "/users/1"))
            #expect(sent52?.id == 1)
            // `null` is not an empty body: it decodes as JSON into nil through Optional's own Decodable.
            let sent54 = try await client.send(Get<JSONValue>(path: "/json-null"))
            #expect(sent54 == .null)
            await expectParleyError(.decoding) { try await client.send(GetOptional(path: "/text")) }
        }
    }

    @Test("JSONValue for dynamic JSON", arguments: TransportKind.allCases)
    func jsonValue(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let value = try await client.send(Get<JSONValue>(path: "/users/2"))
            #expect(value["name"] == .string("Alan Turing"))
            #expect(value["id"]?.intValue == 2)
            let roundTrip = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
            #expect(roundTrip == value)
            #expect(JSONValue.int(1) == .double(1))
            #expect(JSONValue.array([.null, .bool(true)]) != .array([.null, .bool(false)]))
        }
    }

    struct Upper: ResponseDecoder {
        func decode(_ response: ResponseBody) async throws -> String {
            String(decoding: try await response.data(), as: UTF8.self).uppercased() + " (\(response.head.status.code))"
        }
    }

    struct Shout: Endpoint {
        typealias Response = String
        var path: Path { "/text" }
        var decoder: Upper { Upper() }
    }

    @Test("a custom ResponseDecoder replaces the default", arguments: TransportKind.allCases)
    func customDecoder(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let sent87 = try await client.send(Shout())
            #expect(sent87 == "HELLO, PARLEY (200)")
        }
    }

    struct Items: Decodable, Sendable {
        struct Item: Decodable, Sendable {
            let id: Int
            let name: Int
        }
        let items: [Item]
    }

    @Test("a decoding error names the coding path, the expected type and shows the body", arguments: TransportKind.allCases)
    func decodingPath(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.decoding) {
                try await client.send(Get<Items>(path: "/large-json", query: ["items": "5"]))
            }
            #expect(error?.codingPath == "items[0].name")
            #expect(error?.description.contains("items[0].name") == true)
            #expect(error?.description.contains("Int") == true)
            #expect(error?.bodyExcerpt?.contains("\"items\"") == true)

            let missing = await expectParleyError(.decoding) { try await client.send(Get<User>(path: "/users/1/profile")) }
            #expect(missing?.codingPath == "name")

            let empty = await expectParleyError(.decoding) { try await client.send(Get<User>(path: "/empty")) }
            #expect(empty?.description.contains("empty body") == true)
        }
    }
}
