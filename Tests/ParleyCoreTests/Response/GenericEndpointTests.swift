import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// One generic endpoint for every response type, as test helpers and thin API wrappers write it (issue 25).
private struct Fetch<Response: Sendable>: Endpoint {
    var path: Path
    var query: Query = []
    var decoder: DefaultResponseDecoder<Response> { .chosenAtRuntime }
}

private struct Member: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// Neither Decodable nor Void: the default decoder has no way to make one.
private struct Opaque: Sendable {}

@Suite("A generic endpoint decodes each concrete response type as the default decoder does")
struct GenericEndpointTests {
    @Test("Decodable, Void, String, Data and Optional through one generic type", arguments: TransportKind.allCases)
    func everyType(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let member = try await client.send(Fetch<Member>(path: "/users/1"))
            #expect(member == Member(id: 1, name: "Ada Lovelace"))
            try await client.send(Fetch<Void>(path: "/users/1"))
            let text = try await client.send(Fetch<String>(path: "/text"))
            #expect(text == "hello, parley")
            let bytes = try await client.send(Fetch<Data>(path: "/bytes", query: ["n": "10"]))
            #expect(bytes.count == 10)
            let none = try await client.send(Fetch<Member?>(path: "/empty"))
            #expect(none == nil)
            let some = try await client.send(Fetch<Member?>(path: "/users/2"))
            #expect(some?.id == 2)
            let json = try await client.send(Fetch<JSONValue>(path: "/users/1"))
            #expect(json["name"] == "Ada Lovelace")
        }
    }

    @Test("a type the default decoder cannot make fails the call with a decoding error that names it")
    func unsupportedType() async throws {
        try await withDemoClient(.asyncHTTPClient) { client, _ in
            let error = await expectParleyError(.decoding) { try await client.send(Fetch<Opaque>(path: "/users/1")) }
            let message = error?.message ?? ""
            #expect(message.contains("Opaque"), "\(message)")
            #expect(message.contains("give the endpoint a `decoder`"), "\(message)")
            // The connection is usable afterwards: the unread body did not wedge it.
            let member = try await client.send(Fetch<Member>(path: "/users/2"))
            #expect(member.id == 2)
        }
    }
}
