import ServiceLifecycle
import UnixSignals

extension DemoServer {
    /// Runs the server in the foreground until SIGINT/SIGTERM; calls `onStarted(port)` once listening.
    ///
    /// On SIGINT or SIGTERM the server shuts down gracefully (like ``stop()``) and this method returns.
    ///
    /// - Parameters:
    ///   - port: The port to bind on 127.0.0.1, or `0` for an ephemeral port.
    ///   - onStarted: Called once with the bound ports (HTTP, and the JSON-RPC WebSocket server) when both
    ///     accept connections.
    /// - Throws: The bind error if the port cannot be used, or a service-group error.
    package static func run(
        port: Int = 0,
        onStarted: @escaping @Sendable (_ httpPort: Int, _ webSocketPort: Int) -> Void
    ) async throws {
        let group = DemoApplication.makeServiceGroup(
            port: port,
            events: EventBoard(),
            signals: [.sigint, .sigterm],
            onListening: onStarted
        )
        try await group.run()
    }
}
