// swift-format-ignore-file
// Laid out line for line as the swift blocks of the articles and README it compiles (scripts/check-docs, scripts/check-readme).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

// The Parley blocks of Sources/Parley/Parley.docc/MigratingToParley.md, compiled and run against the demo server.
enum DocCMigratingToParley {
    typealias User = DocCShared.User
    typealias GetUser = DocCShared.GetUser
}

extension DocCMigratingToParley {
    @Suite("DocC: Migrating to Parley", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a promise's done and catch become an awaited call in a do block")
        func promiseToAsync() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let client = Client(baseURL: try #require(URL(string: server.baseURL)))
            do {
                let user = try await client.send(GetUser(id: 1))
                print("Got user: \(user.name)")
            } catch {
                print("An error occurred: \(error)")
            }
            #expect(try await client.send(GetUser(id: 1)).name == "Ada Lovelace")
        }
    }
}
