import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// What a call can fail at, each reached through the fault server (or no server at all).
enum FailureStage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case connectionRefused, status, decoding, timeout

    var testDescription: String { rawValue }

    /// The path on the fault server that fails at this stage.
    var path: Path {
        switch self {
        case .connectionRefused, .status: "/no-such-route"
        case .decoding: "/invalid-json"
        case .timeout: "/slow-headers"
        }
    }

    /// The endpoint failing at this stage: the timeout gets a short deadline, the others a generous one.
    var endpoint: FaultCall<FaultRecord> {
        FaultCall<FaultRecord>(path: path, timeout: self == .timeout ? .milliseconds(300) : .seconds(20))
    }

    var expectedKind: ParleyError.Kind {
        switch self {
        case .connectionRefused: .transport
        case .status: .unacceptableStatus
        case .decoding: .decoding
        case .timeout: .timeout
        }
    }
}

/// Puts credentials into the request's authority, as a careless middleware might (`user:s3cret@host`).
struct UserInfoMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let authority = request.authority { request.authority = "user:s3cret@" + authority }
        return try await next(request, body, baseURL)
    }
}

/// Sets a header field through `HTTPFields` with whatever value it was given, CR LF included.
struct RawHeaderMiddleware: ClientMiddleware {
    let name: HTTPField.Name
    let value: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[name] = value
        return try await next(request, body, baseURL)
    }
}

/// Sets the request's path, as a middleware rewriting paths might.
struct RawPathMiddleware: ClientMiddleware {
    let path: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.path = path
        return try await next(request, body, baseURL)
    }
}

/// Whether `text` holds a character no message or log may show raw: C0 and C1 controls, DEL, bidi controls.
func holdsUnprintable(_ text: String) -> Bool {
    text.unicodeScalars.contains { scalar in
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

@Suite("Secrets and escaping in errors and logs", .timeLimit(.minutes(2)))
struct SecretsAndEscapingTests {
    // MARK: 6b: user info

    @Test(
        "a base URL with user:password@ never shows the password, whatever the call would have failed at",
        arguments: TransportKind.allCases,
        FailureStage.allCases
    )
    func baseURLUserInfo(_ kind: TransportKind, _ stage: FailureStage) async throws {
        let server = try await FaultServer.start()
        let origin = stage == .connectionRefused ? try await FaultServer.unusedPortURL() : server.baseURL
        let url = try #require(URL(string: origin.replacingOccurrences(of: "http://", with: "http://user:s3cret@")))
        let logs = LogRecorder()
        let client = Client(
            baseURL: url,
            transport: makeFaultTransport(kind),
            middlewares: [.logging(logs.logger(level: .trace))]
        )
        let error = await expectParleyError(.invalidRequest) { try await client.send(stage.endpoint) }
        let description = error.map(\.description) ?? ""
        #expect(!description.contains("s3cret"), "\(description)")
        #expect(description.contains("credentials"), "\(description)")
        #expect(!logs.records.contains { $0.everything.contains("s3cret") })
        #expect(server.acceptedConnections == 0, "nothing is sent to a base URL carrying credentials")
        try await client.shutdown()
        await server.stop()
    }

    @Test(
        "user info a middleware puts in the URL never reaches the error or the log, at any stage",
        arguments: TransportKind.allCases,
        FailureStage.allCases
    )
    func middlewareUserInfo(_ kind: TransportKind, _ stage: FailureStage) async throws {
        let logs = LogRecorder()
        let middlewares: [any ClientMiddleware] = [UserInfoMiddleware(), .logging(logs.logger(level: .trace))]
        try await withFaultClient(kind, middlewares: middlewares) { client, server in
            var target = client
            if stage == .connectionRefused {
                target = Client(
                    baseURL: try #require(URL(string: try await FaultServer.unusedPortURL())),
                    transport: client.transport,
                    middlewares: middlewares
                )
            }
            let error = await expectParleyError(stage.expectedKind) { try await target.send(stage.endpoint) }
            let description = error.map(\.description) ?? ""
            let url = error?.request?.url ?? ""
            #expect(!description.contains("s3cret"), "\(description)")
            #expect(!url.contains("s3cret"), "\(url)")
            let logged = logs.records.map(\.everything).joined(separator: "\n")
            #expect(!logged.contains("s3cret"), "\(logged)")
        }
    }

    // MARK: 6c: escaping

    @Test(
        "control bytes, bidi overrides and CR LF from a server are escaped in the error and the log",
        arguments: TransportKind.allCases
    )
    func controlBytesEscaped(_ kind: TransportKind) async throws {
        let logs = LogRecorder()
        try await withFaultClient(kind, middlewares: [.logging(logs.logger(level: .trace))]) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.send(FaultCall<Data>(path: "/hostile/control-bytes"))
            }
            let description = error.map(\.description) ?? ""
            #expect(!holdsUnprintable(description), "\(description.debugDescription)")
            #expect(description.contains(#"\r\n"# + FaultServer.controlBytesForgedLine), "\(description)")
            #expect(description.contains(#"\u{1B}[2K"#) && description.contains(#"\u{202E}"#), "\(description)")
            let excerpt = error?.bodyExcerpt ?? ""
            #expect(!holdsUnprintable(excerpt) && excerpt.hasPrefix(#"oops\0\r\n"#), "\(excerpt.debugDescription)")
            #expect(error?.body?.contains(0x1B) == true, "the raw body stays raw")
            #expect(logs.records.contains { $0.everything.contains(#"\r\n"# + FaultServer.controlBytesForgedLine) })
            for record in logs.records {
                let parts = [record.message, record.error.map { "\($0)" } ?? ""] + record.metadata.values.map { "\($0)" }
                for part in parts {
                    #expect(!holdsUnprintable(part), "\(part.debugDescription)")
                }
            }
        }
    }

    @Test("a JSON-RPC error message with control bytes is escaped", arguments: TransportKind.allCases)
    func jsonRPCErrorEscaped(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/hostile/rpc-error-control")
            let error = await expectParleyError(.jsonRPCError) { try await rpc.call(Sum(params: [1])) }
            let description = error.map(\.description) ?? ""
            #expect(!holdsUnprintable(description), "\(description.debugDescription)")
            #expect(!holdsUnprintable(error?.message ?? ""))
            #expect(!holdsUnprintable(error?.jsonRPCError?.description ?? ""))
            #expect(description.contains(#"\r\nlevel=info msg="#), "\(description)")
        }
    }

    @Test("a body excerpt escapes bytes that are not UTF-8 and says 'not UTF-8' for binary data")
    func invalidUTF8Excerpt() {
        var error = ParleyError(.decoding, "x")
        error.body = Data("a text with one bad byte \u{1B}".utf8) + Data([0xFF, 0x41, 0xC3])
        #expect(error.bodyExcerpt == #"a text with one bad byte \u{1B}\xFFA\xC3"#)
        error.body = Data((0..<64).map { UInt8(0x80 + $0) })
        #expect(error.bodyExcerpt == "<64 bytes, not UTF-8 text>")
        #expect(ParleyError(.transport, "line\r\nforged").message == #"line\r\nforged"#)
    }

    // MARK: 6d: CR/LF in header values set outside Endpoint headers

    @Test(
        "CR LF in a value a middleware sets through HTTPFields is refused before anything is sent",
        arguments: TransportKind.allCases
    )
    func middlewareHeaderInjection(_ kind: TransportKind) async throws {
        let name = try #require(HTTPField.Name("X-Custom"))
        try await withFaultClient(kind, middlewares: [RawHeaderMiddleware(name: name, value: "abc\r\nX-Injected: 1")]) {
            client,
            server in
            let error = await expectParleyError(.invalidRequest) { try await client.send(FaultCall<Data>(path: "/ok")) }
            #expect(error?.message.contains("X-Custom") == true, "\(error?.message ?? "")")
            #expect(server.acceptedConnections == 0)
        }
        try await withFaultClient(kind, middlewares: [RawPathMiddleware(path: "/ok HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET /ok")]) {
            client,
            server in
            await expectParleyError(.invalidRequest) { try await client.send(FaultCall<Data>(path: "/ok")) }
            #expect(server.acceptedConnections == 0)
        }
        // A value with two spaces that is not followed by a field name is legal and goes out.
        try await withFaultClient(kind, middlewares: [RawHeaderMiddleware(name: name, value: "a  b")]) { client, server in
            _ = try await client.send(FaultCall<Data>(path: "/ok"))
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test(
        "a token or API key holding CR LF is refused with .invalidRequest, without showing it",
        arguments: TransportKind.allCases
    )
    func credentialHeaderInjection(_ kind: TransportKind) async throws {
        let bearer = BearerAuthMiddleware(ClosureAccessTokenProvider { _ in AccessToken("abc\r\nX-Injected: 1") })
        let keys: [any ClientMiddleware] = [bearer, APIKeyMiddleware("abc\r\nX-Injected: 1"), APIKeyMiddleware("abc\n")]
        for middleware in keys {
            try await withFaultClient(kind, middlewares: [middleware]) { client, server in
                let error = await expectParleyError(.invalidRequest) { try await client.send(FaultCall<Data>(path: "/ok")) }
                let description = error.map(\.description) ?? ""
                #expect(!description.contains("Injected"), "\(description)")
                #expect(server.acceptedConnections == 0)
            }
        }
    }
}
