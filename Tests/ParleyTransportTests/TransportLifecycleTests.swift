import AsyncHTTPClient
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyURLSession
import Testing

@testable import ParleyTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Transports")
struct TransportLifecycleTests {
    @Test("an injected HTTPClient is used and never shut down by Parley")
    func injectedHTTPClient() async throws {
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
        let server = try await DemoServer.start()
        do {
            let client = Client(
                baseURL: try #require(URL(string: server.baseURL)),
                transport: AsyncHTTPClientTransport(client: httpClient)
            )
            let sent21 = try await client.send(GetUser(id: 1))
            #expect(sent21.id == 1)
            try await client.shutdown()
            // Still usable: Parley did not shut it down.
            let direct = try await httpClient.execute(HTTPClientRequest(url: server.baseURL + "/text"), timeout: .seconds(60))
            #expect(direct.status.code == 200)
            let sent26 = try await client.send(GetUser(id: 2))
            #expect(sent26.id == 2)
        } catch {
            // An HTTPClient released without shutdown() traps in debug builds: shut it down on every path.
            try? await httpClient.shutdown()
            await server.stop()
            throw error
        }
        try await httpClient.shutdown()
        await server.stop()
    }

    @Test("an HTTPClient Parley created is shut down cleanly by Client.shutdown()")
    func ownedHTTPClient() async throws {
        let server = try await DemoServer.start()
        let transport = AsyncHTTPClientTransport(configuration: HTTPClient.Configuration())
        #expect(transport.ownsClient)
        let client = Client(baseURL: try #require(URL(string: server.baseURL)), transport: transport)
        let sent37 = try await client.send(GetUser(id: 1))
        #expect(sent37.id == 1)
        try await client.shutdown()
        let error = await expectParleyError(.transport) { try await client.send(GetUser(id: 1)) }
        #expect(error?.description.contains("alreadyShutdown") == true || error?.description.contains("shut") == true)
        await server.stop()
    }

    @Test("with no overall timeout, AsyncHTTPClient's read timeout still catches a silent server")
    func readTimeout() async throws {
        #expect(Client.Configuration().timeout == nil)
        #expect(AsyncHTTPClientTransport.defaultConfiguration.timeout.read == .seconds(60))
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.timeout.read = .milliseconds(200)
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let server = try await DemoServer.start()
        let client = Client(baseURL: try #require(URL(string: server.baseURL)), transport: transport)
        let error = await expectParleyError(.timeout) {
            try await client.send(Get<JSONValue>(path: "/slow", query: ["ms": "5000"]))
        }
        #expect(error?.underlying is HTTPClientError)
        try await client.shutdown()
        await server.stop()
    }

    @Test("the default Client(baseURL:) runs on AsyncHTTPClient")
    func defaultClient() async throws {
        let server = try await DemoServer.start()
        let client = Client(baseURL: try #require(URL(string: server.baseURL)))
        #expect(client.transport is AsyncHTTPClientTransport)
        let sent49 = try await client.send(GetUser(id: 2))
        #expect(sent49.name == "Alan Turing")
        await server.stop()
    }

    @Test("an injected URLSession is used")
    func injectedURLSession() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Session": "injected"]
        let session = URLSession(configuration: configuration)
        try await withDemoClient(.urlSession) { client, server in
            let custom = Client(baseURL: client.baseURL, transport: URLSessionTransport(session: session))
            let echo = try await custom.send(EchoEndpoint())
            #expect(echo.header("x-session") == ["injected"])
        }
        session.finishTasksAndInvalidate()
    }

    @Test("repeated response header fields are kept", arguments: TransportKind.allCases)
    func repeatedHeaders(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let (_, head) = try await client.response(for: Get<JSONValue>(path: "/headers/multi"))
            let multi = head.headerFields[values: HTTPField.Name("X-Multi")!]
            #expect(multi.joined(separator: ",").replacingOccurrences(of: " ", with: "") == "one,two")
        }
    }
}
