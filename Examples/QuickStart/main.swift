import Foundation
import Parley
import ParleyAsyncHTTPClient

struct User: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

// GET /users/{id}: a GET is three lines; method, query, headers, body, validation and timeout have defaults.
struct GetUser: Endpoint {
    typealias Response = User
    let id: Int
    var path: Path { "/users/\(id)" }
}

// POST /users with a JSON body; the response is decoded as a User.
struct CreateUser: Endpoint {
    typealias Response = User
    let name: String
    let email: String
    var method: HTTPRequest.Method { .post }
    var path: Path { "/users" }
    var body: RequestBody { .json(["name": name, "email": email]) }
}

guard let baseURL = URL(string: "http://127.0.0.1:8080") else { fatalError("not a URL") }
let client = Client(baseURL: baseURL, headers: ["User-Agent": "quick-start/1.0"])

let user = try await client.send(GetUser(id: 1))
print("GET /users/1 ->", user.name, user.email)

let (created, response) = try await client.response(for: CreateUser(name: "Grace Hopper", email: "grace@example.com"))
print("POST /users ->", response.status.code, created.id, created.name)

do {
    _ = try await client.send(GetUser(id: 99))
} catch {
    print("GET /users/99 ->", error.kind)  // one ParleyError: its kind, then what was sent and what came back
    print(error)
}
