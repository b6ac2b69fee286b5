import ServiceLifecycle

/// A running demo server.
///
/// Every instance binds `127.0.0.1` only and has its own in-memory user store and its own
/// registry of closed `/hang` connections, so several servers can run side by side in one process.
///
/// ```swift
/// let server = try await DemoServer.start()
/// defer { Task { await server.stop() } }
/// print(server.baseURL)  // http://127.0.0.1:54321
/// ```
package final class DemoServer: Sendable {
    /// The port the server is listening on.
    package let port: Int

    /// The server's address: `"http://127.0.0.1:PORT"`.
    package var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// The port of the JSON-RPC WebSocket server.
    package let webSocketPort: Int

    /// The JSON-RPC WebSocket endpoint: `"ws://127.0.0.1:PORT/rpc/ws"`.
    package var webSocketURL: String { "ws://127.0.0.1:\(self.webSocketPort)\(RPCWebSocketRoute.path)" }

    private let serviceGroup: ServiceGroup
    private let events: EventBoard
    private let task: Task<Void, Never>

    private init(port: Int, webSocketPort: Int, serviceGroup: ServiceGroup, events: EventBoard, task: Task<Void, Never>) {
        self.port = port
        self.webSocketPort = webSocketPort
        self.serviceGroup = serviceGroup
        self.events = events
        self.task = task
    }

    deinit {
        self.task.cancel()
    }

    /// Starts the server on 127.0.0.1 at `port` (0 = ephemeral) and returns once it is accepting connections.
    ///
    /// - Parameter port: The port to bind, or `0` to let the system pick a free one.
    /// - Returns: The running server; call ``stop()`` when done.
    /// - Throws: The bind error if the port cannot be used, or `CancellationError` if the calling
    ///   task is cancelled while starting.
    package static func start(port: Int = 0) async throws -> DemoServer {
        let events = EventBoard()
        let (listening, continuation) = AsyncThrowingStream<(Int, Int), any Error>.makeStream()
        let group = DemoApplication.makeServiceGroup(port: port, events: events, signals: []) { httpPort, webSocketPort in
            continuation.yield((httpPort, webSocketPort))
        }
        let task = Task<Void, Never> {
            do {
                try await group.run()
                continuation.finish(throwing: DemoServerError.stoppedBeforeListening)
            } catch {
                continuation.finish(throwing: error)
            }
        }
        do {
            for try await (httpPort, webSocketPort) in listening {
                return DemoServer(port: httpPort, webSocketPort: webSocketPort, serviceGroup: group, events: events, task: task)
            }
            // The stream only ends without a port if this task was cancelled.
            throw CancellationError()
        } catch {
            task.cancel()
            await task.value
            throw error
        }
    }

    /// Gracefully stops the server and waits until it has stopped. Idempotent.
    ///
    /// New connections are refused and idle connections closed. In-flight requests may finish,
    /// except that `/hang`, `/hang-headers`, streamed bodies (`/bytes`, `/large-json`) and any
    /// `/slow` request with more than a second left drop their connections at once. Whatever is
    /// still running after 5 seconds is cancelled.
    package func stop() async {
        self.events.fire(.stopping)
        await self.serviceGroup.triggerGracefulShutdown()
        await self.task.value
    }
}
