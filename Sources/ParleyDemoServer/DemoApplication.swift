import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Assembles the demo server: router, Hummingbird application and service group.
enum DemoApplication {
    /// Creates the service group that runs one demo server bound to `127.0.0.1:port`.
    ///
    /// - Parameters:
    ///   - port: Port to bind, `0` for an ephemeral port.
    ///   - events: The server's event board (fires `.stopping` on graceful shutdown).
    ///   - signals: Unix signals that trigger a graceful shutdown.
    ///   - onListening: Called with the bound port once the server accepts connections.
    static func makeServiceGroup(
        port: Int,
        events: EventBoard,
        signals: [UnixSignal],
        onListening: @escaping @Sendable (Int) -> Void
    ) -> ServiceGroup {
        var logger = Logger(label: "parley.demo-server")
        logger.logLevel = .warning
        let app = Application(
            router: self.makeRouter(users: UserStore(), events: events),
            configuration: .init(address: .hostname("127.0.0.1", port: port), backlog: 1024),
            onServerRunning: { channel in
                onListening(channel.localAddress?.port ?? port)
            },
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(
            services: [
                .init(service: app),
                .init(service: ShutdownNotifier(events: events), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: signals,
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        configuration.maximumCancellationDuration = .seconds(5)
        return ServiceGroup(configuration: configuration)
    }

    /// Builds the router with every demo route.
    static func makeRouter(users: UserStore, events: EventBoard) -> Router<DemoRequestContext> {
        let router = Router(context: DemoRequestContext.self)
        router.add(middleware: AnyMethodRoutesMiddleware())
        UserRoutes.register(on: router, store: users)
        SimpleRoutes.register(on: router)
        BenchRoutes.register(on: router)
        RPCRoutes.register(on: router)
        StreamingRoutes.register(on: router, events: events)
        TimingRoutes.register(on: router, events: events)
        return router
    }
}
