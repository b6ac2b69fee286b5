import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Parley
import ParleyAsyncHTTPClient
import Testing

@testable import ParleyTestSupport

/// A TLS server (the suite's certificate for 127.0.0.1) that answers each request with `{}` and keeps the connection
/// alive, except that it reads the second request on its first connection and closes it unanswered: what a server that
/// closes an idle kept-alive connection just as a request is written to it looks like to the client.
private final class ClosingTLSServer: Sendable {
    let port: Int
    /// The requests received, in order: method and connection number.
    let received: LockedBox<[Received]>
    private let channel: any Channel

    struct Received: Sendable, Equatable {
        var method: String
        var connection: Int
    }

    private init(port: Int, received: LockedBox<[Received]>, channel: any Channel) {
        self.port = port
        self.received = received
        self.channel = channel
    }

    static func start(folder: String) async throws -> ClosingTLSServer {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(folder + "/server.pem").map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: folder + "/server.key", format: .pem))
        )
        let context = try NIOSSLContext(configuration: tls)
        let received = LockedBox<[Received]>([])
        let connections = LockedBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let number = connections.mutate { count -> Int in
                        count += 1
                        return count
                    }
                    try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try child.pipeline.syncOperations.addHandler(ClosingHandler(connection: number, received: received))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ClosingTLSServer(port: try #require(channel.localAddress?.port), received: received, channel: channel)
    }

    func stop() async {
        try? await channel.close()
    }
}

/// Reads request heads (bodies are announced by Content-Length and skipped), answers `{}`; the second request of
/// connection 1 is read and the connection closed.
private final class ClosingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let connection: Int
    let received: LockedBox<[ClosingTLSServer.Received]>
    private var buffer: [UInt8] = []
    private var requests = 0

    init(connection: Int, received: LockedBox<[ClosingTLSServer.Received]>) {
        self.connection = connection
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        buffer += Array(buffer: unwrapInboundIn(data))
        while let end = headEnd() {
            let head = String(decoding: buffer[..<end], as: UTF8.self)
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            guard buffer.count >= end + 4 + length else { return }
            buffer.removeFirst(end + 4 + length)
            let method = String(head.prefix { $0 != " " })
            received.mutate { $0.append(.init(method: method, connection: connection)) }
            requests += 1
            if connection == 1, requests == 2 {
                context.close(promise: nil)
                return
            }
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
        }
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}

private struct Ping: Endpoint {
    typealias Response = JSONValue
    var method: HTTPRequest.Method = .get
    var path: Path = "/ping"
}

private struct Post: Endpoint {
    typealias Response = JSONValue
    var method: HTTPRequest.Method { .post }
    var path: Path = "/post"
    var body: JSONValue? { ["n": 1] }
}

@Suite(
    "Pinned connections: a kept-alive connection closed unanswered (a TLS server of the test's own)",
    .enabled(if: TLSPeer.folder != nil && TLSPeer.leafPin != nil, "scripts/start-peers makes the suite's certificates (openssl)"),
    .timeLimit(.minutes(1))
)
struct PinnedRetryTests {
    private func client(_ server: ClosingTLSServer) throws -> Client {
        let policy = TLSPolicy(roots: [try TLSPeer.pem("ca.pem")], pinnedPublicKeys: [try #require(TLSPeer.leafPin)])
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)"))
        return Client(baseURL: url, transport: try AsyncHTTPClientTransport(tls: policy))
    }

    @Test("a GET is sent once more on a new connection, and answered")
    func idempotentRetried() async throws {
        let server = try await ClosingTLSServer.start(folder: try #require(TLSPeer.folder))
        let client = try client(server)
        do {
            #expect(try await client.send(Ping()) == [:])
            #expect(try await client.send(Ping()) == [:], "the second went out on the kept-alive connection, closed unanswered")
        } catch {
            Issue.record(error)
        }
        #expect(server.received.value.map(\.connection) == [1, 1, 2])
        try await client.shutdown()
        await server.stop()
    }

    @Test("a POST is not sent again: it fails, saying the server may or may not have acted on it")
    func nonIdempotentNotRetried() async throws {
        let server = try await ClosingTLSServer.start(folder: try #require(TLSPeer.folder))
        let client = try client(server)
        do {
            #expect(try await client.send(Post()) == [:])
        } catch {
            Issue.record(error)
        }
        let error = await expectParleyError(.transport) { _ = try await client.send(Post()) }
        #expect(
            error?.message.contains("closed the connection before answering") == true,
            "\(String(describing: error?.message))"
        )
        #expect(server.received.value.map(\.method) == ["POST", "POST"])
        try await client.shutdown()
        await server.stop()
    }

    @Test("a pinned origin's socket closes once unused, and a later request opens a new one")
    func idleRelaysClose() async throws {
        let servers = [
            try await ClosingTLSServer.start(folder: try #require(TLSPeer.folder)),
            try await ClosingTLSServer.start(folder: try #require(TLSPeer.folder)),
            try await ClosingTLSServer.start(folder: try #require(TLSPeer.folder)),
        ]
        let policy = TLSPolicy(roots: [try TLSPeer.pem("ca.pem")], pinnedPublicKeys: [try #require(TLSPeer.leafPin)])
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        // AsyncHTTPClient closes its idle connections after this, and the relay its idle sockets.
        configuration.connectionPool.idleTimeout = .milliseconds(200)
        let transport = try AsyncHTTPClientTransport(configuration: configuration, tls: policy)
        do {
            var closures = transport.pinnedIdleClosures.makeAsyncIterator()
            let clients = try servers.map { server in
                Client(baseURL: try #require(URL(string: "https://127.0.0.1:\(server.port)")), transport: transport)
            }
            for client in clients {
                let answer = try await client.send(Ping())
                #expect(answer == [:])
            }
            // Each origin had a socket of its own, and each closes once idle (under load, the first may close before the
            // last request is sent: the count at any instant says little, the closures say it all).
            var closed: Set<String> = []
            while closed.count < 3, let origin = await closures.next() { closed.insert(origin) }
            #expect(closed == Set(servers.map { "127.0.0.1:\($0.port)" }))
            #expect(transport.pinnedListenerCount == 0)
            let again = try await clients[0].send(Ping())
            #expect(again == [:], "a new socket for a later request")
            #expect(transport.pinnedListenerCount <= 1)
        } catch {
            // Shut down whatever failed: an HTTPClient left running traps when it is deinited.
            try await transport.shutdown()
            for server in servers { await server.stop() }
            throw error
        }
        try await transport.shutdown()
        for server in servers { await server.stop() }
    }

    @Test("a request that waits to connect keeps its origin's socket open, however short the idle timeout")
    func leasedSocketStaysOpen() async throws {
        let server = try await ClosingTLSServer.start(folder: try #require(TLSPeer.folder))
        let policy = TLSPolicy(roots: [try TLSPeer.pem("ca.pem")], pinnedPublicKeys: [try #require(TLSPeer.leafPin)])
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        // Every socket and connection is idle at once: only a request's lease keeps the socket until it connects.
        configuration.connectionPool.idleTimeout = .milliseconds(1)
        let transport = try AsyncHTTPClientTransport(configuration: configuration, tls: policy)
        let client = Client(
            baseURL: try #require(URL(string: "https://127.0.0.1:\(server.port)")),
            transport: transport
        )
        var failures: [String] = []
        for _ in 0..<40 {
            do {
                _ = try await client.send(Ping())
            } catch {
                failures.append("\(error)")
            }
        }
        try await transport.shutdown()
        await server.stop()
        #expect(failures.count == 0, "\(failures.count) of 40 failed, the first: \(failures.first ?? "")")
    }
}
