import Foundation
import Hummingbird
import Parley
import ParleyAsyncHTTPClient
import ParleyURLSession
import Testing

@testable import ParleyTestSupport

private struct Hello: Endpoint {
    typealias Response = String
    var path: Path = "/hello"
}

/// A server on `::1`, reached by an IPv6 literal in the base URL (`http://[::1]:PORT`).
@Suite("IPv6 literals in base URLs", .timeLimit(.minutes(1)))
struct IPv6LiteralTests {
    private static func server() async throws -> TestServer {
        let router = Router()
        router.get("hello") { _, _ in "hello over IPv6" }
        return try await TestServer.start(router, address: .hostname("::1", port: 0), label: "ipv6")
    }

    @Test("AsyncHTTPClientTransport reaches http://[::1]:PORT")
    func asyncHTTPClient() async throws {
        let server = try await Self.server()
        let client = Client(baseURL: try #require(URL(string: "http://[::1]:\(server.port)")))
        #expect(try await client.send(Hello()) == "hello over IPv6")
        try await client.shutdown()
        await server.stop()
    }

    #if os(Linux)
        /// Known limitation: FoundationNetworking (swift-corelibs-foundation, Swift 6.3) cannot reach an IPv6 literal:
        /// it refuses the URL with NSURLErrorUnknown (-1000) before anything is sent. This test fails the day it can:
        /// then drop the limitation from the README.
        @Test("known limitation: URLSessionTransport on Linux cannot reach http://[::1]:PORT (FoundationNetworking -1000)")
        func urlSessionOnLinux() async throws {
            let server = try await Self.server()
            let client = Client(
                baseURL: try #require(URL(string: "http://[::1]:\(server.port)")),
                transport: URLSessionTransport()
            )
            let error = await expectParleyError(.invalidRequest) { _ = try await client.send(Hello()) }
            #expect(error?.message.contains("error -1000") == true, "\(String(describing: error))")
            try await client.shutdown()
            await server.stop()
        }
    #endif
}
