import Foundation
import Parley
import ParleyDemoServer
import ParleyTesting
import Testing

/// `POST /users` with a password the server ignores, answered as raw bytes.
struct SignUp: Endpoint {
    struct Body: Encodable, Sendable {
        let name: String
        let email: String
        let password: String
    }
    typealias Response = Data
    var user: Body
    var method: HTTPRequest.Method { .post }
    var path: Path { "/users" }
    var body: RequestBody { .json(user) }
}

/// `POST /auth/token` answered as raw bytes (its `access_token` is a secret).
struct IssueTokenBytes: Endpoint {
    typealias Response = Data
    var method: HTTPRequest.Method { .post }
    var path: Path { "/auth/token" }
}

/// What a client saw of one response: enough to compare a live answer with its replay byte for byte.
struct SeenResponse: Equatable, CustomStringConvertible {
    var status: Int
    var reason: String
    /// `name: value` in order.
    var fields: [String]
    var body: Data

    init(_ response: HTTPResponse, body: Data) {
        status = response.status.code
        reason = response.status.reasonPhrase
        fields = response.headerFields.map { "\($0.name.rawName): \($0.value)" }
        self.body = body
    }

    var description: String { "\(status) \(reason) \(fields) \(body.count) bytes" }
}

/// Records the exchanges `calls` makes against a fresh demo server (AsyncHTTPClient, or `kind`) into `fixture`,
/// then stops the server. Returns what `calls` returned and the server's base URL (dead afterwards).
func recordFixture<T>(
    _ fixture: URL,
    on kind: TransportKind = .asyncHTTPClient,
    redaction: FixtureRedaction = FixtureRedaction(),
    secrets: [String] = [],
    maxBodySize: Int = RecordingTransport.defaultMaxBodySize,
    middlewares: [any ClientMiddleware] = [],
    headers: Headers = [:],
    _ calls: (Client, RecordingTransport) async throws -> T
) async throws -> (value: T, baseURL: URL) {
    let server = try await DemoServer.start()
    let baseURL = try #require(URL(string: server.baseURL))
    let recording = RecordingTransport(
        wrapping: kind.makeTransport(),
        fixture: fixture,
        redaction: redaction,
        secrets: secrets,
        maxBodySize: maxBodySize
    )
    let client = Client(baseURL: baseURL, transport: recording, headers: headers, middlewares: middlewares)
    do {
        let value = try await calls(client, recording)
        try await client.shutdown()
        await server.stop()
        return (value, baseURL)
    } catch {
        try? await client.shutdown()
        await server.stop()
        throw error
    }
}

/// A client on `replay` for `baseURL` (the recording's, whose server has stopped).
func replayClient(_ replay: any ClientTransport, baseURL: URL, middlewares: [any ClientMiddleware] = []) -> Client {
    Client(baseURL: baseURL, transport: replay, middlewares: middlewares)
}

/// The text of the file at `url` (fixtures are UTF-8 JSON).
func fileText(_ url: URL) throws -> String {
    String(decoding: try Data(contentsOf: url), as: UTF8.self)
}

/// Reads `stream` to its end, counting its chunks.
func collect(_ stream: ByteStream) async throws -> (data: Data, chunks: Int) {
    var data = Data()
    var chunks = 0
    for try await chunk in stream {
        data.append(contentsOf: chunk)
        chunks += 1
    }
    return (data, chunks)
}
