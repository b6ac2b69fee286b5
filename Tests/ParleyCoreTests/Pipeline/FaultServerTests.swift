import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// The fault server's own bookkeeping: the leak check of the fault injection tests must be able to fail.
@Suite("Fault server", .timeLimit(.minutes(1)))
struct FaultServerTests {
    @Test("waitUntilIdle reports a connection the client keeps open, and returns once it closes")
    func waitUntilIdleSeesOpenConnection() async throws {
        let server = try await FaultServer.start()
        let client = Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: AsyncHTTPClientTransport(configuration: AsyncHTTPClientTransport.defaultConfiguration),
            configuration: Client.Configuration(timeout: .seconds(40))
        )
        do {
            let streamed = try await client.stream(FaultCall<Data>(path: "/slow-body"))
            #expect(server.openConnections == 1)
            do {
                try await server.waitUntilIdle(timeout: .milliseconds(200))
                Issue.record("waitUntilIdle returned while a response was still being read")
            } catch let error as FaultServerError {
                #expect(error.openConnections == 1)
            }
            withExtendedLifetime(streamed) {}
        }
        // The stream is gone: the transport closes the connection, and the server sees it.
        try await server.waitUntilIdle(timeout: .seconds(5))
        #expect(server.openConnections == 0)
        #expect(server.acceptedConnections == 1)
        try await client.shutdown()
        await server.stop()
    }

    @Test("stop closes the connections still open")
    func stopClosesConnections() async throws {
        let server = try await FaultServer.start()
        let client = Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: AsyncHTTPClientTransport(configuration: AsyncHTTPClientTransport.defaultConfiguration),
            configuration: Client.Configuration(timeout: .seconds(40))
        )
        let streamed = try await client.stream(FaultCall<Data>(path: "/slow-body"))
        #expect(server.openConnections == 1)
        await server.stop()
        #expect(server.openConnections == 0)
        await expectParleyError(.transport) {
            for try await _ in streamed.body {}
        }
        try await client.shutdown()
    }

    @Test("an unknown path is a 404, and parameters out of range a 400")
    func refusals() async throws {
        try await withFaultClient(.asyncHTTPClient) { client, _ in
            let missing = await expectParleyError(.unacceptableStatus) { try await client.send(FaultCall<Data>(path: "/nope")) }
            #expect(missing?.status == .notFound)
            let bad = await expectParleyError(.unacceptableStatus) {
                try await client.send(FaultCall<Data>(path: "/slow-headers", query: ["delay": "soon"]))
            }
            #expect(bad?.status == .badRequest)
        }
    }
}
