import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import ParleyURLSession
import Testing

@testable import ParleyTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``Client/Configuration/responseHeadTimeout`` is one clock with one start, the moment the transport is handed the
/// request: a wait for a free connection, connecting and the TLS handshake count. A buffered call and a streamed one,
/// with a middleware or without (which once chose between two lanes with different starts), on either transport, end
/// the same way. Its limits are half a second, so scripts/test runs it with the other limit suites, on its own.
@Suite("One head clock: the same outcome with and without a middleware, on both transports", .timeLimit(.minutes(2)))
struct HeadClockTests {
    static let cases: [(TransportKind, Bool)] = TransportKind.allCases.flatMap { kind in [(kind, false), (kind, true)] }

    /// A server that accepts a connection and never says a word: a TLS handshake to it never completes.
    @Test("a TLS handshake that never completes fails at responseHeadTimeout", arguments: cases)
    func stalledHandshake(_ kind: TransportKind, middleware: Bool) async throws {
        let silent = try await SilentServer.start()
        try await Self.withClient(kind, middleware: middleware, url: "https://127.0.0.1:\(silent.port)") {
            (client: Client) async throws in
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) { try await client.send(Get<Data>(path: "/")) }
            #expect(error?.message.contains("responseHeadTimeout") == true, "\(kind): \(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(20), "\(kind): the 30 s connect limit must not be what ended it")
            await silent.stop()
        }
    }

    /// Without a head limit, the transport's connect limit still ends a handshake that never completes.
    @Test("without a head limit, a stalled TLS handshake ends at the transport's connect limit", arguments: cases)
    func stalledHandshakeWithoutHeadLimit(_ kind: TransportKind, middleware: Bool) async throws {
        let silent = try await SilentServer.start()
        try await Self.withClient(
            kind,
            middleware: middleware,
            url: "https://127.0.0.1:\(silent.port)",
            connectTimeout: .seconds(1),
            headTimeout: nil
        ) { (client: Client) async throws in
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) { try await client.send(Get<Data>(path: "/")) }
            #expect(error?.message.contains("responseHeadTimeout") == false, "\(kind): \(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(20), "\(kind): the 40 s call limit must not be what ended it")
            await silent.stop()
        }
    }

    /// One connection per host: a second call waits for the first one's connection, which its server holds. The wait
    /// counts against the second call's head limit, as it does for AsyncHTTPClient's deadline.
    @Test("a wait for a free connection counts against responseHeadTimeout", arguments: cases)
    func poolWait(_ kind: TransportKind, middleware: Bool) async throws {
        let server = try await HoldingServer.start()
        try await Self.withClient(kind, middleware: middleware, url: "http://127.0.0.1:\(server.port)") {
            (client: Client) async throws in
            // The first call's own timeout is its head limit: it waits for the held answer.
            async let first = client.send(Get<String>(path: "/hold", timeout: .seconds(30)))
            await server.waitUntilHeld()
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) { try await client.send(Get<String>(path: "/fast")) }
            #expect(error?.message.contains("responseHeadTimeout") == true, "\(kind): \(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(20))
            server.release()
            #expect(try await first == "held")
            // The connection is free again: the same call is answered (its own limit, so that a loaded machine's slow
            // answer is not mistaken for the pool's wait).
            #expect(try await client.send(Get<String>(path: "/fast", timeout: .seconds(30))) == "fast")
        }
        await server.stop()
    }

    /// The control of the above: a head that comes within the limit is answered, on every lane.
    @Test("a head that is held past responseHeadTimeout fails; one within it is answered", arguments: cases)
    func slowHead(_ kind: TransportKind, middleware: Bool) async throws {
        let server = try await HoldingServer.start()
        try await Self.withClient(kind, middleware: middleware, url: "http://127.0.0.1:\(server.port)") {
            (client: Client) async throws in
            let error = await expectParleyError(.timeout) { try await client.send(Get<String>(path: "/hold")) }
            #expect(error?.message.contains("responseHeadTimeout") == true, "\(kind): \(String(describing: error))")
            server.release()
            #expect(try await client.send(Get<String>(path: "/fast", timeout: .seconds(30))) == "fast")
        }
        await server.stop()
    }

    /// Runs `body` with a client of `kind` for `url` (with a pass-through middleware or without), its head limit
    /// `headTimeout` and its transport's connect limit `connectTimeout`; the client is shut down on every path.
    static func withClient(
        _ kind: TransportKind,
        middleware: Bool,
        url: String,
        connectTimeout: Duration = .seconds(30),
        headTimeout: Duration? = .milliseconds(500),
        _ body: (Client) async throws -> Void
    ) async throws {
        let client = Client(
            baseURL: try #require(URL(string: url)),
            transport: transport(kind, connectTimeout: connectTimeout),
            middlewares: middleware ? [PassThrough()] : [],
            configuration: Client.Configuration(timeout: .seconds(40), responseHeadTimeout: headTimeout)
        )
        try await shuttingDown(client.shutdown) { try await body(client) }
    }

    /// A transport of `kind` with one connection per host and the given connect limit (URLSession has none of its
    /// own: its request timeout, the wait for each next byte, stands in). The URLSession transport is given one
    /// session: by default it runs each request in a session of its own, which has no connection to wait for.
    static func transport(_ kind: TransportKind, connectTimeout: Duration) -> any ClientTransport {
        switch kind {
        case .asyncHTTPClient:
            var configuration = AsyncHTTPClientTransport.configuration(connectTimeout: connectTimeout)
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1
            return AsyncHTTPClientTransport(configuration: configuration)
        case .urlSession:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 1
            configuration.timeoutIntervalForRequest = Double(connectTimeout / .milliseconds(1)) / 1000
            return URLSessionTransport(session: URLSession(configuration: configuration))
        }
    }
}

/// A middleware that only passes the call on: with it, every response body crosses a middleware.
private struct PassThrough: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await next(request, body, baseURL)
    }
}

/// A TCP listener on 127.0.0.1 that accepts connections and never writes to them; ``stop()`` closes them.
private struct SilentServer {
    let channel: any Channel
    let accepted: LockedState<[any Channel]>
    var port: Int { channel.localAddress?.port ?? 0 }

    static func start() async throws -> SilentServer {
        let accepted = LockedState<[any Channel]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                accepted.withLock { $0.append(child) }
                return child.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return SilentServer(channel: channel, accepted: accepted)
    }

    func stop() async {
        try? await channel.close()
        for child in accepted.withLock({ $0 }) { try? await child.close() }
    }
}

/// A server whose `/hold` answers only once released (it says when a request is being held), and whose `/fast`
/// answers at once.
private final class HoldingServer: Sendable {
    private let server: TestServer
    private let held: AsyncStream<Void>
    private let heldContinuation: AsyncStream<Void>.Continuation
    private let released: LockedState<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>

    var port: Int { server.port }

    private init(
        server: TestServer,
        held: (AsyncStream<Void>, AsyncStream<Void>.Continuation),
        released: LockedState<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>
    ) {
        self.server = server
        (self.held, heldContinuation) = held
        self.released = released
    }

    static func start() async throws -> HoldingServer {
        let held = AsyncStream<Void>.makeStream()
        let released = LockedState<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        let router = Router()
        router.get("hold") { _, _ -> String in
            held.1.yield()
            await withCheckedContinuation { continuation in
                let resume = released.withLock { state -> Bool in
                    if state.done { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resume { continuation.resume() }
            }
            return "held"
        }
        router.get("fast") { _, _ -> String in "fast" }
        let server = try await TestServer.start(router, label: "head-clock")
        return HoldingServer(server: server, held: held, released: released)
    }

    /// Returns once a request to `/hold` is being held.
    func waitUntilHeld() async {
        for await _ in held { return }
    }

    /// Answers every held request, and every later one at once.
    func release() {
        let waiters = released.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func stop() async {
        release()
        heldContinuation.finish()
        await server.stop()
    }
}
