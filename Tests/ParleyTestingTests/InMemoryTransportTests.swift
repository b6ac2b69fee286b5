import Foundation
import Parley
import ParleyTesting
import Testing

@testable import ParleyTestSupport

@Suite("In-memory transport")
struct InMemoryTransportTests {
    @Test("routes answer and the recorder keeps every request")
    func routesAndRecorder() async throws {
        let transport = InMemoryTransport()
        transport.route(.get, "/users/:id") { request in
            try .json(User(id: Int(request.parameters["id"] ?? "") ?? -1, name: "Stub", email: "stub@example.com"))
        }
        transport.route(.post, "/users") { request in
            let new = try request.decodeJSON(NewUser.self)
            return try .json(User(id: 3, name: new.name, email: new.email), status: .created)
        }
        let client = Client(
            baseURL: try #require(URL(string: "https://api.test")),
            transport: transport,
            headers: ["X-App": "tests"]
        )
        let sent18 = try await client.send(GetUser(id: 5))
        #expect(sent18.id == 5)
        let sent19 = try await client.send(CreateUser(user: NewUser(name: "Grace", email: "g@example.com")))
        #expect(sent19.name == "Grace")

        let requests = transport.requests
        #expect(requests.map(\.method) == [.get, .post])
        #expect(requests.map(\.path) == ["/users/5", "/users"])
        #expect(requests[0].header(HTTPField.Name("X-App")!) == "tests")
        #expect(requests[1].operationID == "CreateUser")
        #expect(try requests[1].decodeJSON(NewUser.self).email == "g@example.com")
    }

    @Test("an unmatched request fails loudly, naming the request and the routes")
    func unmatched() async throws {
        let transport = InMemoryTransport()
        transport.route(.get, "/users") { _ in .text("[]") }
        let client = Client(baseURL: try #require(URL(string: "https://api.test")), transport: transport)
        let error = await expectParleyError(.transport) { try await client.send(GetUser(id: 1)) }
        #expect(error?.message.contains("no route for GET /users/1") == true)
        #expect(error?.message.contains("GET /users") == true)
        transport.clearRequests()
        #expect(transport.requests.isEmpty)
    }
}
