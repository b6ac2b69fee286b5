// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyDemoServer
import ParleyURLSession
import Testing

// The Parley blocks of Sources/Parley/Parley.docc/MigratingFromBackchat.md, compiled and run against the demo server.
enum DocCMigratingFromBackchat {
    typealias WhoAmI = DocCShared.WhoAmI

    struct TokenReply: Decodable, Sendable {
        let accessToken: String
        let expiresIn: Int?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    struct IssueToken: Endpoint {
        typealias Response = TokenReply
        var method: HTTPRequest.Method { .post }
        var path: Path { "/auth/token" }
    }

    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct NewUser: Codable, Sendable {
        let name: String
        let email: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
        var query: Query { ["fields": "name,email"] }
        var headers: Headers { ["Accept-Language": "de"] }
    }

    struct CreateUser: Endpoint {
        typealias Response = User
        let user: NewUser
        var method: HTTPRequest.Method { .post }
        var path: Path { "/users" }
        var body: RequestBody { .json(user) }
    }

    struct TokenHookMiddleware: ClientMiddleware {
        let token: @Sendable () async throws -> String?

        func intercept(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            if let token = try await token() {
                request.headerFields[.authorization] = token
            }
            return try await next(request, body, baseURL)
        }
    }

    struct GetCheckedUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
        var validators: [ResponseValidator] {
            [
                .requiredJSONKeys(["id", "name"]),
                .check("the body is larger than 64 KiB") { _, data in data.count <= 65_536 },
            ]
        }
    }
}

extension DocCMigratingFromBackchat {
    @Suite("DocC: Migrating from Backchat", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("endpoints, a client with header fields and bearer tokens, a token-hook middleware, validators")
        func migrated() async throws {
            try await withDocServer { baseURL, _ in
                let tokens = Client(baseURL: baseURL, transport: URLSessionTransport())
                @Sendable func fetchToken() async throws -> AccessToken {
                    AccessToken(try await tokens.send(IssueToken()).accessToken, expiresIn: nil)
                }
                let client = Client(
                    baseURL: baseURL,
                    transport: URLSessionTransport(),
                    headers: ["X-App-Version": "2.1"],
                    middlewares: [.bearerAuth { _ in try await fetchToken() }]
                )
                let created = try await client.send(CreateUser(user: NewUser(name: "Grace", email: "grace@example.com")))
                #expect(created.id == 3)
                #expect(try await client.send(GetUser(id: 1)).name == "Ada Lovelace")
                #expect(try await client.send(WhoAmI())["subject"] == "demo")

                let current = try await fetchToken().value
                let hooked = Client(baseURL: baseURL, middlewares: [TokenHookMiddleware { "Bearer \(current)" }])
                #expect(try await hooked.send(WhoAmI())["subject"] == "demo")

                let user = try await client.send(GetCheckedUser(id: 1))
                print(user.name)   // Ada Lovelace
                #expect(user.name == "Ada Lovelace")
                let thrown = await #expect(throws: ParleyError.self) { try await client.send(GetCheckedUser(id: 99)) }
                #expect(thrown?.kind == .unacceptableStatus)
                try await client.shutdown()
                try await tokens.shutdown()
            }
        }
    }
}

// The article's `extension User` extends the `User` of its first blocks: here a file-scope copy of it and of `GetUser`
// (the enum's are nested, and an extension is declared at file scope), private to this file.
private struct User: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

private struct GetUser: Endpoint {
    typealias Response = User
    let id: Int
    var path: Path { "/users/\(id)" }
}

extension User {
    static func get(_ id: Int) -> GetUser { GetUser(id: id) }
}

@Suite("DocC: Migrating from Backchat (models that provide their calls)", .timeLimit(.minutes(1)))
struct DocCMigratingFromBackchatModels {
    @Test("a model's static function makes its endpoint")
    func modelProvidesEndpoint() async throws {
        try await withDocServer { baseURL, _ in
            let client = Client(baseURL: baseURL, transport: URLSessionTransport())
            let ada = try await client.send(User.get(1))
            print(ada.email)   // ada@example.com
            #expect(ada.email == "ada@example.com")
            try await client.shutdown()
        }
    }
}
