import Foundation
import Parley
import ParleyAsyncHTTPClient
import Testing

@testable import ParleyTestSupport

/// `/v1.43/info` of the Unix-socket server.
private struct Info: Endpoint {
    typealias Response = SocketInfo
    var method: HTTPRequest.Method = .get
    var path: Path = "/v1.43/info"
    var body: Parley.RequestBody = .none
}

@Suite("Unix domain sockets as base URLs (http+unix://, as for the Docker API)", .timeLimit(.minutes(1)))
struct UnixSocketTests {
    @Test("AsyncHTTPClient: GET and POST over the socket, the path and body as sent")
    func asyncHTTPClient() async throws {
        let server = try await UnixSocketServer.start()
        let client = Client(baseURL: try server.baseURL, transport: AsyncHTTPClientTransport())
        let info = try await client.send(Info())
        #expect(info.path == "/v1.43/info")
        let posted = try await client.send(Info(method: .post, body: .text("hello over a socket")))
        #expect(posted.body == "hello over a socket")
        try await client.shutdown()
        await server.stop()
    }

    @Test("URLSession cannot: an invalid request that says which transport can, nothing sent")
    func urlSession() async throws {
        let server = try await UnixSocketServer.start()
        let client = Client(baseURL: try server.baseURL, transport: TransportKind.urlSession.makeTransport())
        let error = await expectParleyError(.invalidRequest) { _ = try await client.send(Info()) }
        #expect(error?.message.contains("AsyncHTTPClientTransport") == true, "\(String(describing: error))")
        try await client.shutdown()
        await server.stop()
    }

    @Test("a missing socket is a transport error naming it")
    func missingSocket() async throws {
        let client = Client(baseURL: try #require(URL(string: "http+unix://%2Fnonexistent%2Fparley.sock")))
        let error = await expectParleyError(.transport) { _ = try await client.send(Info()) }
        #expect(error != nil)
        try await client.shutdown()
    }
}
