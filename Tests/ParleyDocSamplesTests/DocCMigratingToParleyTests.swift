// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Parley blocks of Sources/Parley/Parley.docc/MigratingToParley.md, compiled and run against the demo server.
// They use only what the article declares.
enum DocCMigratingToParley {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }
}

extension DocCMigratingToParley {
    @Suite("DocC: Migrating to Parley", .timeLimit(.minutes(1)))
    struct Examples {
        func printUser(with client: Client) async {
            do {
                let user = try await client.send(GetUser(id: 1))
                print("Got user: \(user.name)")
            } catch {
                print("An error occurred: \(error)")
            }
        }

        @Test("a promise's done and catch become an awaited call in a do block")
        func promiseToAsync() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
                await printUser(with: client)
                let user = try await client.send(GetUser(id: 1))
                #expect(user.name == "Ada Lovelace")
            }
        }
    }
}
