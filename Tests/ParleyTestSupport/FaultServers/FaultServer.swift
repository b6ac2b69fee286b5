import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ParleyDemoServer

/// A raw HTTP/1.1 server on 127.0.0.1 that misbehaves on purpose, for testing how a client survives faults.
///
/// It reads one request (head and `Content-Length` body) per connection and answers by its path. Every
/// response carries `Connection: close`; complete responses are followed by the server closing, while the
/// stalling routes leave closing to the client.
///
/// - `/ok`: a well-formed `200` with the text `ok` (a control).
/// - `/reset`: closes with a TCP RST (`SO_LINGER` 0) right after reading the request, before any response byte.
/// - `/close-mid-body?length=N` (default 1000): `Content-Length: N`, the first `N/2` bytes, then a close.
/// - `/close-mid-body-no-length`: neither `Content-Length` nor chunked, some bytes, then a close. By RFC 9112
///   §6.3 such a body ends when the connection closes, so this is a **complete** response with
///   ``closeDelimitedBody``.
/// - `/close-mid-chunked`: `Transfer-Encoding: chunked`, two chunks, then a close without the final `0` chunk.
/// - `/slow-headers?delay=MS` (default 5000): nothing at all for `MS` milliseconds, then a `200` with `late`.
/// - `/slow-body`: `Content-Length: 1000` and 10 bytes of it, then nothing until the client closes.
/// - `/never-ends?interval=MS`: a chunked body that never ends, until the client closes: one 64-byte chunk
///   every `MS` milliseconds, or (without `interval`) 4 KiB chunks as fast as the client reads.
/// - `/invalid-status-line`: `HTTP/1.1 abc Nope` as the status line.
/// - `/invalid-json`: `200`, `Content-Type: application/json`, body `{"id": 1,`.
/// - `/no-location`: `302 Found` without `Location`.
/// - `/redirect-loop`: `302` to itself; `/redirect-loop?via=b`: `302` to `/redirect-loop-b`, which answers `302`
///   back to `/redirect-loop?via=b` (a → b → a).
/// - `/storm?key=K&failures=N&retry-after=S` (default 2 failures): the first `N` requests for key `K` answer `503`
///   (with `Retry-After: S` when given), later ones `200` with `{"key":"K","attempts":n}`; see
///   ``stormRequests(key:)``.
/// - `/gzip`: `200`, `Content-Encoding: gzip`, a whole gzip stream of ``gzipPayload``.
/// - `/truncated-gzip`: the same stream cut in the middle of its data (no end, no trailer), with a
///   `Content-Length` that matches the bytes sent.
/// - `/dribble-head?interval=MS` (default 100): the status line, then header lines one byte every `MS` milliseconds,
///   never ending the head (each byte restarts a client's idle timeout).
/// - `/dribble-body?interval=MS` (default 100): a head with `Content-Length: 1000000`, then the body one byte every
///   `MS` milliseconds.
/// - `/hostile/…`: answers that attack parsing and error messages: `/hostile/deep-json/N`,
///   `/hostile/control-bytes`, `/hostile/rpc-strays/N`, `/hostile/rpc-error-control` (see ``controlBytesForgedLine``).
/// - the hostile framing and size routes (see `FaultResponder+Hardening.swift`) (`/interim-100`, `/early-hints`,
///   `/content-length-twice`, `/content-length-list`, `/content-length-huge`, `/many-trailers`,
///   `/redirect-huge-body`, `/endless-401`, `/gzip-bomb-chunked`).
/// - anything else: `404`.
///
/// Connection refused needs no server: ``unusedPortURL()`` gives a URL on a port where nothing listens.
///
/// The server counts its connections exactly (``openConnections``, ``acceptedConnections``), and
/// ``waitUntilIdle(timeout:)`` waits, without polling, until every one is closed.
package final class FaultServer: Sendable {
    /// The port the server listens on.
    package let port: Int
    /// `"http://127.0.0.1:PORT"`.
    package var baseURL: String { "http://127.0.0.1:\(self.port)" }

    private let channel: any Channel
    private let connections: FaultConnectionRegistry
    private let stormCounters: NIOLockedValueBox<[String: Int]>

    private init(
        port: Int,
        channel: any Channel,
        connections: FaultConnectionRegistry,
        stormCounters: NIOLockedValueBox<[String: Int]>
    ) {
        self.port = port
        self.channel = channel
        self.connections = connections
        self.stormCounters = stormCounters
    }

    /// Starts a server on 127.0.0.1 at an ephemeral port and returns once it accepts connections.
    ///
    /// - Throws: The bind error if no port could be bound.
    package static func start() async throws -> FaultServer {
        let connections = FaultConnectionRegistry()
        let stormCounters = NIOLockedValueBox<[String: Int]>([:])
        let responder = FaultResponder(stormCounters: stormCounters)
        let (channel, port) = try await connections.bind(server: "fault server") { FaultRequestReader(responder: responder) }
        return FaultServer(port: port, channel: channel, connections: connections, stormCounters: stormCounters)
    }

    /// Stops listening, closes every open connection and waits until they are closed. Idempotent.
    package func stop() async {
        try? await self.channel.close()
        for connection in self.connections.openChannels {
            connection.close(promise: nil)
            try? await connection.closeFuture.get()
        }
    }

    /// How many connections are open now.
    package var openConnections: Int { self.connections.openCount }

    /// How many connections the server has accepted since it started.
    package var acceptedConnections: Int { self.connections.acceptedCount }

    /// Returns as soon as no connection that received a request byte is open (at once if none is).
    ///
    /// A connection on which no byte arrived carried no call: a client's pool may open one for a request that was
    /// cancelled (or timed out) before the connection was up, and keep it for the next request. Such connections are
    /// not waited for; ``openConnections`` still counts them. Resumed by the closing of the last connection, not by
    /// polling.
    ///
    /// - Parameter timeout: How long to wait at most.
    /// - Throws: ``FaultServerError`` with the number of connections still open once `timeout` has passed;
    ///   `CancellationError` if the calling task is cancelled.
    package func waitUntilIdle(timeout: Duration = .seconds(5)) async throws {
        try await self.connections.waitUntilIdle(timeout: timeout, on: self.channel.eventLoop)
    }

    /// How many requests `/storm` has seen for `key`.
    package func stormRequests(key: String) -> Int {
        self.stormCounters.withLockedValue { $0[key, default: 0] }
    }

    /// The body of `/close-mid-body-no-length`: a complete, close-delimited response body.
    package static var closeDelimitedBody: [UInt8] { FaultResponder.closeDelimitedBody }

    /// What `/gzip` and `/truncated-gzip` compress.
    package static var gzipPayload: [UInt8] { GzipStream.demoPayload }

    /// The log line that `/hostile/control-bytes` and `/hostile/rpc-error-control` try to forge, after a CR LF.
    package static var controlBytesForgedLine: String { HostileAnswer.forgedLine }

    /// A URL on 127.0.0.1 where every connection is refused (``RefusedPort``).
    package static func unusedPortURL() async throws -> String {
        try RefusedPort.url()
    }
}
