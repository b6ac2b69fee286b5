import AsyncHTTPClient
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Synchronization
import Testing

@testable import ParleyTestSupport

/// A call to a ``ConnectionFaultServer`` route.
struct ConnectionFaultCall<Value: Decodable & Sendable>: Endpoint {
    typealias Response = Value
    var method: HTTPRequest.Method = .get
    var path: Path
    var query: Query = []
}

/// `/early-answer`'s `{}`.
struct EmptyAnswer: Decodable, Sendable {}

/// Runs `body` with a fresh ``ConnectionFaultServer`` and a client of `kind` with pools of its own; shuts both down.
func withConnectionFaultClient<T>(
    _ kind: TransportKind,
    _ body: (Client, ConnectionFaultServer) async throws -> T
) async throws -> T {
    let server = try await ConnectionFaultServer.start()
    let client = Client(
        baseURL: try #require(URL(string: server.baseURL)),
        transport: makeFaultTransport(kind),
        configuration: Client.Configuration(timeout: .seconds(40))
    )
    do {
        let result = try await body(client, server)
        try await client.shutdown()
        await server.stop()
        return result
    } catch {
        try? await client.shutdown()
        await server.stop()
        throw error
    }
}

/// `bytes` as the `/raw` route's query.
func rawResponse(_ bytes: String) -> Query {
    ["bytes": bytes]
}

@Suite("AsyncHTTPClient hardening: hostile responses, early answers, stale connections")
struct AsyncHTTPClientHardeningTests {
    /// Status codes below 100 that AsyncHTTPClient 1.37.0 takes for interim responses (issue 14, item 2).
    static let subHundredStatuses = [
        "HTTP/1.1 000 Weird\r\nContent-Length: 2\r\n\r\n{}",
        "HTTP/1.1 000 Weird\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 001 Weird\r\nContent-Length: 2\r\n\r\n{}",
        "HTTP/1.1 099 Weird\r\nContent-Length: 2\r\n\r\n{}",
        "HTTP/1.1 042 Weird\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    ]

    @Test(
        "a status code below 100 fails the call with .transport instead of ending the process",
        arguments: TransportKind.allCases
    )
    func statusBelow100(_ kind: TransportKind) async throws {
        try await withConnectionFaultClient(kind) { client, _ in
            for bytes in Self.subHundredStatuses {
                let call = ConnectionFaultCall<Data>(path: "/raw", query: rawResponse(bytes))
                let error = await expectParleyError(.transport) { try await client.send(call) }
                if kind == .asyncHTTPClient {
                    let code = String(bytes.dropFirst(9).prefix(3))
                    #expect(error?.message.contains("status code \(code)") == true, "\(String(describing: error))")
                }
            }
            // The client still works afterwards.
            let ok = ConnectionFaultCall<String>(path: "/keep-alive")
            let answer = try await client.send(ok)
            #expect(answer == "ok")
        }
    }

    @Test("an HTTPClient of one's own is protected by AsyncHTTPClientTransport.protected(_:)")
    func ownClientProtected() async throws {
        let server = try await ConnectionFaultServer.start()
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: AsyncHTTPClientTransport.protected(AsyncHTTPClientTransport.protected(HTTPClient.Configuration()))
        )
        let client = Client(baseURL: try #require(URL(string: server.baseURL)), transport: AsyncHTTPClientTransport(client: http))
        let call = ConnectionFaultCall<Data>(path: "/raw", query: rawResponse(Self.subHundredStatuses[0]))
        let error = await expectParleyError(.transport) { try await client.send(call) }
        #expect(error?.message.contains("status code 000") == true)
        try await http.shutdown()
        await server.stop()
    }

    /// Malformed responses, and the words the message must use instead of NIO's parser's.
    static let malformed: [(bytes: String, says: String)] = [
        ("HTTQ/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "status line does not start with"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 2\nX: y\r\n\r\nok", "not valid HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n", "chunk size"),
        ("HTTP/1.1 200 OK\r\nContent-Length: x2\r\n\r\nok", "Content-Length"),
        ("HTTP/1.1 200 OK\r\nBad Header: 1\r\nContent-Length: 2\r\n\r\nok", "header line"),
    ]

    @Test("a malformed response is described in words: what was not valid HTTP/1.1, not the parser's jargon")
    func malformedResponses() async throws {
        try await withConnectionFaultClient(.asyncHTTPClient) { client, _ in
            for (bytes, says) in Self.malformed {
                let call = ConnectionFaultCall<Data>(path: "/raw", query: rawResponse(bytes))
                let error = await expectParleyError(.transport) { try await client.send(call) }
                let message = error?.message ?? ""
                #expect(message.contains("not valid HTTP/1.1"), "\(bytes.debugDescription): \(message)")
                #expect(message.contains(says), "\(bytes.debugDescription): \(message)")
                for jargon in ["invalid constant string", "http_parser", "HTTPParserError", "swift-http-parser"] {
                    #expect(!message.contains(jargon), "\(bytes.debugDescription): \(message)")
                }
            }
        }
    }

    @Test("a request body shorter than its declared length is named as such, not HTTPClientError.bodyLengthMismatch")
    func requestBodyShorterThanDeclared() async throws {
        // The fault server's /ok waits for the whole declared body before it answers.
        let server = try await FaultServer.start()
        let transport = AsyncHTTPClientTransport()
        var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/ok")
        request.headerFields[.contentLength] = "\(1 << 20)"
        let (chunks, source) = AsyncStream.makeStream(of: ArraySlice<UInt8>.self)
        source.yield(ArraySlice([UInt8](repeating: 7, count: 300_000)))
        source.finish()
        let body = HTTPBody(chunks, length: .known(1 << 20), iterationBehavior: .single)
        let error = await expectParleyError(.invalidRequest) {
            try await transport.send(
                request,
                body: body,
                baseURL: try #require(URL(string: server.baseURL)),
                operationID: "short"
            )
        }
        let message = error?.message ?? ""
        #expect(message.contains("did not have the length it declared"), "\(message)")
        #expect(message.contains("after 300000 bytes"), "\(message)")
        #expect(!message.contains("bodyLengthMismatch"), "\(message)")
        try await transport.shutdown()
        await server.stop()
    }

    @Test(
        "a kept-alive connection the server closed while idle is not a failure: the request goes on a new one",
        arguments: TransportKind.allCases
    )
    func staleConnection(_ kind: TransportKind) async throws {
        try await withConnectionFaultClient(kind) { client, server in
            let call = ConnectionFaultCall<String>(path: "/keep-alive")
            var failures: [String] = []
            for round in 1...40 {
                let first = try await client.send(call)
                #expect(first == "ok")
                await server.closeIdleConnections()
                do {
                    _ = try await client.send(call)
                } catch {
                    failures.append("round \(round): \(error)")
                }
            }
            #expect(failures.isEmpty, "\(failures.count) of 40 rounds failed: \(failures.prefix(3))")
        }
    }

    @Test(
        "a server that answers before reading the upload ends the upload: no more reading, sending or progress",
        arguments: TransportKind.allCases
    )
    func earlyAnswer(_ kind: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("early.bin")
        let size = 64 << 20
        try Pattern.write(size, to: file)
        let log = ProgressLog()
        try await withConnectionFaultClient(kind) { client, server in
            let call = ConnectionFaultCall<EmptyAnswer>(method: .post, path: "/early-answer")
            let upload = client.upload(call, fromFile: file, onProgress: log.record)
            _ = try await upload.value
            let atReturn = log.all
            switch kind {
            case .asyncHTTPClient:
                // The body ends with the call: the client closes the connection instead of sending the rest on it
                // (before, the whole file went on being read and sent, with progress, after the call had returned).
                try await server.waitUntilIdle(timeout: .seconds(20))
                let after = log.all
                #expect(
                    after.count == atReturn.count,
                    "progress went on after the call ended: \(atReturn.last.map { "\($0)" } ?? "none") → \(after.last.map { "\($0)" } ?? "none")"
                )
                #expect((after.last?.completedBytes ?? 0) < Int64(size), "\(after.last.map { "\($0)" } ?? "none")")
                #expect(server.discardedBodyBytes < size, "the server got \(server.discardedBodyBytes) of \(size) bytes")
            case .urlSession:
                // URLSession (libcurl) sends the whole body before it hands over the response, so nothing goes on
                // behind the caller's back: the progress at the end is the whole file.
                #expect(atReturn.last?.completedBytes == Int64(size), "\(atReturn.last.map { "\($0)" } ?? "none")")
            }
        }
    }
}

extension AsyncHTTPClientHardeningTests {
    @Test("a server that answers early and then stops reading does not keep the upload (and its file) open")
    func earlyAnswerThenStall() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("stall.bin")
        let size = 64 << 20
        try Pattern.write(size, to: file)
        let log = ProgressLog()
        // Only AsyncHTTPClient: URLSession (libcurl) sends the whole body before it hands over the response, so
        // against this server its call waits for the client's timeout.
        try await withConnectionFaultClient(.asyncHTTPClient) { client, server in
            let call = ConnectionFaultCall<EmptyAnswer>(method: .post, path: "/early-answer", query: ["then": "stall"])
            _ = try await client.upload(call, fromFile: file, onProgress: log.record).value
            let atReturn = log.all
            // Before, the body writer waited for the socket to drain, holding the connection and the file; once the
            // server reads again, it sent the rest and kept the connection. Now the connection is closed at once:
            // when the server reads again, it finds the few bytes in flight, then the end.
            await server.resumeStalledConnections()
            try await server.waitUntilIdle(timeout: .seconds(20))
            #expect(log.all.count == atReturn.count, "progress went on after the call ended")
            #expect((log.all.last?.completedBytes ?? 0) < Int64(size))
        }
    }
}

/// AsyncHTTPClient's own behaviour on a status code below 100, without Parley's guard, watched in a child process so
/// that the day upstream fixes it this suite says so (and the known limitation can go).
@Suite(
    "AsyncHTTPClient upstream: status below 100 still crashes an unprotected HTTPClient",
    .enabled(if: ParleyRun.probeExecutable != nil, "needs the built parley-probe (PARLEY_PROBE_BIN, or next to the test bundle)")
)
struct AsyncHTTPClientUpstreamCrashTests {
    @Test("a plain HTTPClient dies by a signal on HTTP/1.1 000 (known limitation; this test flips when upstream fixes it)")
    func unprotectedClientCrashes() async throws {
        try await Self.expectCrash(
            probe: "unprotected-ahc",
            response: "HTTP/1.1 000 Weird\r\nContent-Length: 2\r\n\r\n{}",
            fixed: """
                An unprotected AsyncHTTPClient no longer crashes on a status code below 100. Upstream has fixed it: \
                update the known limitation in Sources/Parley/Parley.docc/Transports.md and the README, \
                docs/upstream/async-http-client-interim-status-crash.md, and consider dropping \
                HTTP1ConnectionGuard's status check.
                """
        )
    }

    /// Runs `parley-probe PROBE URL` against a ``ConnectionFaultServer`` that answers `response`, and expects the child to
    /// die by a signal; if it exits instead, the dependency was fixed and the issue recorded says `fixed`.
    static func expectCrash(probe: String, response: String, fixed: String) async throws {
        let server = try await ConnectionFaultServer.start()
        let encoded = response.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let run: (Reason, Int32, String)
        do {
            run = try await Self.run(try #require(ParleyRun.probeExecutable), [probe, "\(server.baseURL)/raw?bytes=\(encoded)"])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let (reason, status, output) = run
        if reason == .exit {
            Issue.record("\(fixed) (The child exited with \(status): \(output))")
        } else {
            #expect([SIGILL, SIGTRAP, SIGABRT].contains(status), "died by signal \(status)")
        }
    }

    /// Runs `executable arguments…` to the end: how it ended, its status or signal, and its standard output.
    static func run(_ executable: URL, _ arguments: [String]) async throws -> (Reason, Int32, String) {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let outputURL = folder.file("stdout")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        // A crash is expected: no backtrace (symbolicating one takes seconds).
        let environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let exit = try await runToEnd(
            executable.path,
            arguments,
            environment: environment,
            output: outputURL.path,
            error: outputURL.path
        )
        return (
            exit.bySignal ? .uncaughtSignal : .exit, exit.code, String(decoding: try Data(contentsOf: outputURL), as: UTF8.self)
        )
    }

    /// How the child ended.
    enum Reason { case exit, uncaughtSignal }
}

/// FoundationNetworking's own behaviour (Swift 6.3 toolchain) on a response whose head a server cuts short: libcurl
/// ends the transfer without an error and FoundationNetworking stops the process (`NativeProtocol.swift:240`, "Transfer
/// completed, but there's no response"). Fixed upstream by swift-corelibs-foundation #5286 (6.4). Watched in a child
/// process, so that the toolchain that fixes it makes this suite say so.
@Suite(
    "FoundationNetworking upstream: a response head cut short still ends the process",
    .enabled(if: ParleyRun.probeExecutable != nil, "needs the built parley-probe (PARLEY_PROBE_BIN, or next to the test bundle)")
)
struct URLSessionUpstreamCrashTests {
    @Test("URLSessionTransport's process dies by a signal when the server closes in the middle of the head (known limitation)")
    func headCutShortCrashes() async throws {
        try await AsyncHTTPClientUpstreamCrashTests.expectCrash(
            probe: "urlsession",
            response: "HTTP/1.1 200 OK\r\nX-Cut: here\r\n",
            fixed: """
                URLSessionTransport no longer ends the process on a response head cut short: the toolchain's \
                FoundationNetworking has the fix. Update the known limitation in the README and \
                Sources/Parley/Parley.docc/Transports.md.
                """
        )
    }
}
