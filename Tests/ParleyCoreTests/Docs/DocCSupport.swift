// swift-format-ignore-file
// Laid out line for line as the swift blocks of the articles and README it compiles (scripts/check-docs, scripts/check-readme).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

// The DocC catalogs' Swift blocks (Sources/*/*.docc) are compiled and run by the `DocC…` suites in this folder,
// against the demo server on 127.0.0.1; scripts/check-docs fails when a block is not found in these files line
// for line. An article declares `baseURL` as the demo server a reader starts (`http://127.0.0.1:8080`, compiled by
// DocCDemoServerAddress below); the suites run the samples with a `baseURL` of their own demo server, on a free port.

/// Runs `body` with a fresh demo server and its base URL, stopping the server afterwards.
@discardableResult
func withDocServer<T>(_ body: (URL, DemoServer) async throws -> T) async throws -> T {
    let server = try await DemoServer.start()
    do {
        let result = try await body(try #require(URL(string: server.baseURL)), server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// The lines with which an article that sends requests starts: the demo server a reader starts with
/// `swift run parley demo --serve --port 8080`, and a client for it. Compiled here; the suites run the samples
/// against a demo server of their own, on a free port, whose URL they pass in as `baseURL`.
@Suite("DocC: the demo server's address, as the articles declare it")
struct DocCDemoServerAddress {
    @Test("the base URL and client an article declares")
    func baseURLAndClient() async throws {
let baseURL = URL(string: "http://127.0.0.1:8080")!   // swift run parley demo --serve --port 8080
let client = Client(baseURL: baseURL)
        #expect(baseURL.port == 8080 && baseURL.host() == "127.0.0.1")
        try await client.shutdown()
    }
}

/// A fresh folder under the temporary directory, removed after `body`.
func withTemporaryFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appending(path: "parley-docc-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// Endpoints the suites use in checks of their own, outside the articles' samples (scripts/check-docs rejects a
/// sample that uses a name only the tests declare: each article declares what its samples use).
enum DocCShared {
    /// The demo server's `/users/{id}`, as the tests' support declares it (Tests/ParleyTestSupport/DemoEndpoints.swift).
    typealias GetUser = ParleyTestSupport.GetUser

    /// The demo server's `/auth/me`: `{"subject": "demo", "token": "<number>"}` for the current bearer token.
    struct WhoAmI: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/me" }
    }
}
