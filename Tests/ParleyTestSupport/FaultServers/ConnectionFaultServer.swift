import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A raw HTTP/1.1 server on 127.0.0.1 for faults that need control over the connection itself: connections kept
/// alive between requests and then closed while idle, answers sent before the request body has been read, and
/// byte-exact responses that no well-behaved server would send.
///
/// Unlike ``FaultServer`` it reads any number of requests per connection (head, then a `Content-Length` body).
///
/// - `/keep-alive`: a `200` with the text `ok` and no `Connection: close`; the connection stays open for the next
///   request. ``closeIdleConnections()`` closes every such connection that is between requests (as a server's idle
///   timeout does), without a word to the client.
/// - `/early-answer`: a `200` with the JSON body `{}` as soon as the request head has arrived, before any body byte
///   is read (as nginx does for a request it does not need the body of); then every further byte is read and
///   dropped (counted in ``discardedBodyBytes``) until the client closes. `/early-answer?then=stall`: the same
///   answer, then nothing more is read at all (the client's writes back up) until
///   ``resumeStalledConnections()``, after which the rest is read and dropped as above. (A server that never reads
///   again cannot see the client close: the FIN waits behind the unread bytes.)
/// - `/raw?bytes=B`: writes `B` (percent-decoded, so any byte can be sent) as the whole response, then closes.
/// - anything else: `404`.
package final class ConnectionFaultServer: Sendable {
    /// The port the server listens on.
    package let port: Int
    /// `"http://127.0.0.1:PORT"`.
    package var baseURL: String { "http://127.0.0.1:\(self.port)" }

    private let channel: any Channel
    private let connections: FaultConnectionRegistry
    private let shared: ConnectionFaultState

    private init(port: Int, channel: any Channel, connections: FaultConnectionRegistry, shared: ConnectionFaultState) {
        self.port = port
        self.channel = channel
        self.connections = connections
        self.shared = shared
    }

    /// Starts a server on 127.0.0.1 at an ephemeral port and returns once it accepts connections.
    ///
    /// - Throws: The bind error if no port could be bound.
    package static func start() async throws -> ConnectionFaultServer {
        let connections = FaultConnectionRegistry()
        let shared = ConnectionFaultState()
        let (channel, port) = try await connections.bind(server: "connection fault server") {
            ConnectionFaultHandler(shared: shared)
        }
        return ConnectionFaultServer(port: port, channel: channel, connections: connections, shared: shared)
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

    /// How many request body bytes `/early-answer` has read and dropped after answering, over all connections.
    package var discardedBodyBytes: Int { self.shared.discarded.withLockedValue { $0 } }

    /// Returns as soon as no connection that received a byte is open (at once if none is; see
    /// ``FaultServer/waitUntilIdle(timeout:)``); throws ``FaultServerError`` once `timeout`
    /// has passed first.
    package func waitUntilIdle(timeout: Duration = .seconds(5)) async throws {
        try await self.connections.waitUntilIdle(timeout: timeout, on: self.channel.eventLoop)
    }

    /// Closes (with a FIN, no `Connection: close` before) every connection that is kept alive between requests,
    /// and returns once they are closed. Returns how many it closed.
    @discardableResult
    package func closeIdleConnections() async -> Int {
        let idle = self.shared.idle.withLockedValue { idle in
            defer { idle = [:] }
            return Array(idle.values)
        }
        for connection in idle {
            connection.close(promise: nil)
            try? await connection.closeFuture.get()
        }
        return idle.count
    }
}

extension ConnectionFaultServer {
    /// Makes every connection that `/early-answer?then=stall` stopped reading read (and drop) again.
    package func resumeStalledConnections() async {
        let stalled = self.shared.stalled.withLockedValue { stalled in
            defer { stalled = [:] }
            return Array(stalled.values)
        }
        for connection in stalled {
            try? await connection.setOption(ChannelOptions.autoRead, value: true).get()
        }
    }
}

/// What the connections of one ``ConnectionFaultServer`` share.
final class ConnectionFaultState: Sendable {
    /// The connections between two requests of `/keep-alive`.
    let idle = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
    /// The connections `/early-answer?then=stall` stopped reading.
    let stalled = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
    /// Body bytes dropped by `/early-answer`.
    let discarded = NIOLockedValueBox(0)
}
