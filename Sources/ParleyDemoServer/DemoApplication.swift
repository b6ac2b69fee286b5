import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
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
        onListening: @escaping @Sendable (_ httpPort: Int, _ webSocketPort: Int) -> Void
    ) -> ServiceGroup {
        var logger = Logger(label: "parley.demo-server")
        logger.logLevel = .warning
        // Both servers report their ports; `onListening` runs once both accept connections.
        let ports = NIOLockedValueBox<(http: Int?, webSocket: Int?)>((nil, nil))
        let report: @Sendable (_ http: Int?, _ webSocket: Int?) -> Void = { http, webSocket in
            let both = ports.withLockedValue { ports -> (Int, Int)? in
                if let http { ports.http = http }
                if let webSocket { ports.webSocket = webSocket }
                guard let http = ports.http, let webSocket = ports.webSocket else { return nil }
                return (http, webSocket)
            }
            if let both { onListening(both.0, both.1) }
        }
        let app = Application(
            router: self.makeRouter(users: UserStore(), events: events),
            configuration: .init(address: .hostname("127.0.0.1", port: port), backlog: 1024),
            onServerRunning: { channel in
                report(channel.localAddress?.port ?? port, nil)
            },
            logger: logger
        )
        // JSON-RPC over WebSocket on its own port: the upgrade pipeline answers bytes that are not HTTP
        // differently from the plain HTTP/1 server, whose behaviour the fault tests rely on.
        let topics = TopicBoard()
        let webSocketApp = Application(
            router: Router(context: BasicRequestContext.self),
            server: .http1WebSocketUpgrade { request, _, _ in RPCWebSocketRoute.shouldUpgrade(request, topics: topics) },
            configuration: .init(address: .hostname("127.0.0.1", port: 0), backlog: 256),
            onServerRunning: { channel in
                report(nil, channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(
            services: [
                .init(service: app),
                .init(service: webSocketApp),
                .init(service: ShutdownNotifier(events: events), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: signals,
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        // Past this ServiceLifecycle ends the process with a fatalError: under ThreadSanitizer, beside ~250 tests, a
        // stop once took longer than 5 s more and took the test process with it. A slow stop is better than a crash.
        configuration.maximumCancellationDuration = .seconds(60)
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
        UploadRoute.register(on: router, events: events)
        DownloadRoute.register(on: router, events: events, probe: WriteProbe())
        MultipartRoute.register(on: router, events: events)
        NDJSONRoute.register(on: router, events: events)
        EventStreamRoutes.register(on: router, events: events, stats: EventStreamStats())
        EndlessEventStreamRoute.register(on: router, events: events)
        CompressionRoutes.register(on: router, events: events)
        AuthRoutes.register(on: router, store: AuthStore())
        ResilienceRoutes.register(on: router)
        return router
    }
}
