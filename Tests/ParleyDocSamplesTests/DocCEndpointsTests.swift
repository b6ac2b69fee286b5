// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/EndpointsAndBodies.md, compiled and run against the demo server.
enum DocCEndpoints {
    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct ReplaceUser: Endpoint {
        typealias Response = User
        let id: Int
        let user: NewUser
        var method: HTTPRequest.Method { .put }
        var path: Path { "/users/\(id)" }
        var headers: Headers { ["X-Request-Source": "settings"] }
        var body: RequestBody { .json(user) }
        var timeout: Duration? { .seconds(10) }
    }

    struct NewUser: Codable, Sendable {
        let name: String
        let email: String
    }

    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct Echoed: Decodable, Sendable {
        let method: String
        let path: String      // as sent, percent-encoded
        let query: String     // as sent, percent-encoded
        let headers: [[String]]
        let body: String?
    }

    struct GetFile: Endpoint {
        typealias Response = Echoed
        let name: String
        var path: Path { "/echo/files/\(name)" }
    }

    struct SearchUsers: Endpoint {
        typealias Response = Echoed
        let name: String
        let team: String?
        var path: Path { "/echo/users" }
        var query: Query { ["name": name, "team": team, "limit": "10"] }
    }

    struct ListTagged: Endpoint {
        typealias Response = Echoed
        var path: Path { "/echo/posts" }
        var query: Query { [QueryItem("tag", "swift"), QueryItem("tag", "c++"), QueryItem("drafts", nil)] }
    }

    struct Translate: Endpoint {
        typealias Response = Echoed
        var path: Path { "/echo/translate" }
        var headers: Headers { ["Accept-Language": "fr", "X-Trace": "a", "x-trace": "b"] }
    }

    struct SignUp: Endpoint {
        typealias Response = Echoed
        let email: String
        let plan: String
        var method: HTTPRequest.Method { .post }
        var path: Path { "/echo/signup" }
        var body: RequestBody { .form(["email": email, "plan": plan]) }
    }

    struct PostNote: Endpoint {
        typealias Response = Echoed
        let note: Note
        var method: HTTPRequest.Method { .post }
        var path: Path { "/echo/notes" }
        var body: RequestBody { .json(note, encoder: Self.encoder) }

        static var encoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = .sortedKeys
            return encoder
        }
    }

    struct Note: Encodable, Sendable {
        let authorID: Int
        let text: String
    }

    struct PlaceOrder: Endpoint {
        typealias Response = Echoed
        let key: UUID
        var method: HTTPRequest.Method { .post }
        var path: Path { "/echo/orders" }
        var headers: Headers { ["Idempotency-Key": key.uuidString] }
        var isIdempotent: Bool { true }
    }
}

extension DocCEndpoints {
    @Suite("DocC: Endpoints and Bodies", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a PUT with headers, a JSON body and a timeout")
        func replaceUser() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
                let renamed = try await client.send(ReplaceUser(id: 2, user: NewUser(name: "Alan M. Turing", email: "alan@example.com")))
                print(renamed.name)   // Alan M. Turing
                #expect(renamed.name == "Alan M. Turing")
                #expect(try await client.send(GetUser(id: 2)).name == "Alan M. Turing")
            }
        }

        @Test("interpolated path segments, query items and header fields go on the wire as the article says")
        func pathsQueriesHeaders() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
                let file = try await client.send(GetFile(name: "Q1 2025/report.pdf"))
                print(file.path)   // /echo/files/Q1%202025%2Freport.pdf
                #expect(file.path == "/echo/files/Q1%202025%2Freport.pdf")
                print(try await client.send(SearchUsers(name: "Ada & Grace", team: nil)).query)   // name=Ada%20%26%20Grace&limit=10
                print(try await client.send(ListTagged()).query)                                  // tag=swift&tag=c%2B%2B&drafts
                #expect(try await client.send(SearchUsers(name: "Ada & Grace", team: nil)).query == "name=Ada%20%26%20Grace&limit=10")
                #expect(try await client.send(ListTagged()).query == "tag=swift&tag=c%2B%2B&drafts")
                let translator = Client(baseURL: baseURL, headers: ["Accept-Language": "en", "User-Agent": "my-app/1.0"])
                let echoed = try await translator.send(Translate())
                print(echoed.headers.filter { ["accept-language", "x-trace"].contains($0[0]) })
                // [["accept-language", "fr"], ["x-trace", "a"], ["x-trace", "b"]]
                #expect(echoed.headers.filter { ["accept-language", "x-trace"].contains($0[0]) } == [["accept-language", "fr"], ["x-trace", "a"], ["x-trace", "b"]])
                #expect(echoed.headers.contains(["user-agent", "my-app/1.0"]))
                let escaping = await #expect(throws: ParleyError.self) { try await client.send(GetFile(name: "..")) }
                #expect(escaping?.kind == .invalidRequest)
                #expect(escaping?.message.contains("refusing to send it") == true)
            }
        }

        @Test("form and JSON bodies with their own encoder; an idempotent POST")
        func bodies() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
                print(try await client.send(SignUp(email: "ada+news@example.com", plan: "pro plus")).body ?? "")
                // email=ada%2Bnews%40example.com&plan=pro+plus
                print(try await client.send(PostNote(note: Note(authorID: 1, text: "Hello"))).body ?? "")
                // {"author_id":1,"text":"Hello"}
                let form = try await client.send(SignUp(email: "ada+news@example.com", plan: "pro plus"))
                #expect(form.body == "email=ada%2Bnews%40example.com&plan=pro+plus")
                #expect(form.headers.contains(["content-type", "application/x-www-form-urlencoded"]))
                #expect(try await client.send(PostNote(note: Note(authorID: 1, text: "Hello"))).body == #"{"author_id":1,"text":"Hello"}"#)
                let key = UUID()
                let order = try await client.send(PlaceOrder(key: key))
                #expect(order.method == "POST" && order.headers.contains(["idempotency-key", key.uuidString]))
                #expect(PlaceOrder(key: key).isIdempotent)
            }
        }
    }

}
