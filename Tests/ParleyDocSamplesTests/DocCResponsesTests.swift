// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/ResponsesAndValidation.md, compiled and run against the demo server.
enum DocCResponses {
    struct User: Codable, Sendable {   // the demo server's users
        let id: Int
        let name: String
        let email: String
    }

    struct GetGreeting: Endpoint {
        typealias Response = String
        var path: Path { "/text" }
    }

    struct DeleteUser: Endpoint {
        typealias Response = Void
        let id: Int
        var method: HTTPRequest.Method { .delete }
        var path: Path { "/users/\(id)" }
    }

    struct PendingInvitation: Endpoint {
        typealias Response = User?
        var path: Path { "/no-content" }
    }

    struct GetAnything: Endpoint {
        typealias Response = JSONValue
        let path: Path
    }

    struct Fetch<Response: Sendable>: Endpoint {
        let path: Path
        var decoder: DefaultResponseDecoder<Response> { .chosenAtRuntime }
    }

    struct TokenGrant: Decodable, Sendable {
        let accessToken: String
        let tokenType: String
    }

    struct GrantToken: Endpoint {   // the demo server's POST /auth/token, in snake case
        typealias Response = TokenGrant
        var method: HTTPRequest.Method { .post }
        var path: Path { "/auth/token" }
        var decoder: JSONResponseDecoder<TokenGrant> { JSONResponseDecoder(decoder: Self.snakeCase) }

        static var snakeCase: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
    }

    struct CSVDecoder: ResponseDecoder {
        func decode(_ response: ResponseBody) async throws -> [[String]] {
            let text = String(decoding: try await response.data(), as: UTF8.self)
            return text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        }
    }

    struct GetGreetingFields: Endpoint {
        typealias Response = [[String]]
        var path: Path { "/text" }
        var decoder: CSVDecoder { CSVDecoder() }
    }

    struct LookUpUser: Endpoint {
        typealias Response = Void
        let id: Int
        var path: Path { "/users/\(id)" }
        var acceptableStatusCodes: StatusCodes? { [200...299, 404...404] }
    }

    struct GetProfile: Endpoint {
        typealias Response = JSONValue
        let id: Int
        var path: Path { "/users/\(id)/profile" }
        var validators: [ResponseValidator] {
            [
                .requiredJSONKeys(["id", "profile.bio", "profile.avatar"]),
                .check("the profile belongs to another user") { _, data in
                    (try? JSONDecoder().decode(JSONValue.self, from: data))?["id"]?.intValue == id
                },
            ]
        }
    }

    struct Profile: Decodable, Sendable {
        struct Details: Decodable, Sendable {
            let bio: String
            let avatar: String
        }
        let id: Int
        let profile: Details
    }

    struct GetTypedProfile: Endpoint {
        typealias Response = Profile
        let id: Int
        var path: Path { "/users/\(id)/profile" }
    }
}

extension DocCResponses {
    @Suite("DocC: Responses and Validation", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("String, Void, Optional and JSONValue responses; a decoder of the endpoint's own")
        func responseTypes() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
                print(try await client.send(GetGreeting()))                    // hello, parley
                try await client.send(DeleteUser(id: 2))
                print(try await client.send(PendingInvitation()) as Any)       // nil
                let profile = try await client.send(GetAnything(path: "/users/1/profile"))
                print(profile["profile"]?["bio"]?.stringValue ?? "no bio")     // x
                let user = try await client.send(Fetch<User>(path: "/users/1"))
                try await client.send(Fetch<Void>(path: "/users/1"))
                print(try await client.send(Fetch<String>(path: "/text")))     // hello, parley
                #expect(user.id == 1)
                #expect(try await client.send(GetGreeting()) == "hello, parley")
                #expect(try await client.send(PendingInvitation()) == nil)
                #expect(profile["profile"]?["bio"]?.stringValue == "x")
                let thrown = await #expect(throws: ParleyError.self) { try await client.send(DeleteUser(id: 2)) }
                #expect(thrown?.kind == .unacceptableStatus)

                print(try await client.send(GrantToken()).tokenType)   // Bearer
                #expect(try await client.send(GrantToken()).tokenType == "Bearer")

                print(try await client.send(GetGreetingFields()))   // [["hello", " parley"]]
                #expect(try await client.send(GetGreetingFields()) == [["hello", " parley"]])

                let rows = try await CSVDecoder().decode(ResponseBody(head: HTTPResponse(status: .ok), data: Data("a,b\n1,2".utf8)))
                print(rows)   // [["a", "b"], ["1", "2"]]
                #expect(rows == [["a", "b"], ["1", "2"]])
            }
        }

        @Test("acceptable status codes, validators and a decoding error's coding path")
        func validation() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let client = Client(baseURL: baseURL)
            let (_, head) = try await client.response(for: LookUpUser(id: 99))
            print(head.status.code == 404 ? "available" : "taken")   // available
            #expect(head.status.code == 404)

            do {
                _ = try await client.send(GetProfile(id: 1))
            } catch {
                print(error.kind, error.message)   // validation missing required JSON keys: profile.avatar
            }
            let rejected = await #expect(throws: ParleyError.self) { try await client.send(GetProfile(id: 1)) }
            #expect(rejected?.kind == .validation)
            #expect(rejected?.message == "missing required JSON keys: profile.avatar")

            do {
                _ = try await client.send(GetTypedProfile(id: 1))
            } catch {
                print(error.codingPath ?? "")   // profile.avatar
                print(error)
                // Parley decoding error for GET http://127.0.0.1:8080/users/1/profile: The response of GetTypedProfile could not be
                // decoded: the required key profile.avatar is missing. Response: 200 OK, Content-Type application/json; …
            }
            let failure = await #expect(throws: ParleyError.self) { try await client.send(GetTypedProfile(id: 1)) }
            #expect(failure?.kind == .decoding)
            #expect(failure?.codingPath == "profile.avatar")
            #expect(failure?.description.contains("could not be decoded: the required key profile.avatar is missing") == true)
            #expect(failure?.response?.status.code == 200)
        }
    }
}
