// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/GettingStarted.md, compiled and run against the demo server.
enum DocCGettingStarted {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct CreateUser: Endpoint {
        typealias Response = User
        let name: String
        let email: String
        var method: HTTPRequest.Method { .post }
        var path: Path { "/users" }
        var body: RequestBody { .json(["name": name, "email": email]) }
    }
}

extension DocCGettingStarted {
    @Suite("DocC: Getting Started", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("send, response(for:), failures and the completion handler run as the article says")
        func sendAndFail() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let client = Client(baseURL: baseURL, headers: ["User-Agent": "my-app/1.0"])
            let user = try await client.send(GetUser(id: 1))
            print(user.name)   // Ada Lovelace
            #expect(user.name == "Ada Lovelace")

            let (created, response) = try await client.response(for: CreateUser(name: "Grace", email: "grace@example.com"))
            print(created.id, response.status.code, response.headerFields[.contentType] ?? "")   // 3 201 application/json…
            #expect(created.id == 3 && response.status.code == 201)
            #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)

            do {
                _ = try await client.send(GetUser(id: 99))
            } catch where error.kind == .unacceptableStatus && error.status?.code == 404 {
                print("no such user")
            } catch {
                print(error)   // Parley <kind> error for GET https://api.example.com/v2/users/99: …
            }
            let missing = await #expect(throws: ParleyError.self) { try await client.send(GetUser(id: 99)) }
            #expect(missing?.kind == .unacceptableStatus)
            #expect(missing?.status?.code == 404)

            let handle = client.send(GetUser(id: 2)) { result in
                switch result {
                case .success(let user): print(user.name)           // Alan Turing
                case .failure(let error): print(error.kind, error)
                }
            }
            await handle.wait()   // or handle.cancel()
            #expect(!handle.isCancelled)

            let names = LockedBox<[String]>([])
            await client.send(GetUser(id: 2)) { result in names.mutate { $0.append((try? result.get().name) ?? "failed") } }.wait()
            #expect(names.value == ["Alan Turing"])
        }
    }
}
