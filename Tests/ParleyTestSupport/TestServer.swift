import Hummingbird
import Logging
import NIOCore
import Parley
import ServiceLifecycle

/// A Hummingbird application of a test's own, running in a task until ``stop()``: the start-up every test server
/// shares (a router, an address, a quiet logger, a service group; returns once the server listens).
final class TestServer: Sendable {
    /// The port it listens on (0 on a Unix domain socket).
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, Never>

    private init(port: Int, group: ServiceGroup, task: Task<Void, Never>) {
        self.port = port
        self.group = group
        self.task = task
    }

    deinit {
        task.cancel()
    }

    /// Starts `router` on `address` (127.0.0.1 on an ephemeral port by default), and returns once it listens.
    static func start(
        _ router: Router<BasicRequestContext>,
        address: BindAddress = .hostname("127.0.0.1", port: 0),
        label: String
    ) async throws -> TestServer {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let (listening, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: address),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(services: [.init(service: app)], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        configuration.maximumCancellationDuration = .seconds(60)
        let group = ServiceGroup(configuration: configuration)
        let task = Task<Void, Never> {
            do {
                try await group.run()
                continuation.finish(throwing: ParleyError(.transport, "the test server \(label) stopped before it listened"))
            } catch {
                continuation.finish(throwing: error)
            }
        }
        do {
            for try await port in listening { return TestServer(port: port, group: group, task: task) }
            throw CancellationError()
        } catch {
            task.cancel()
            await task.value
            throw error
        }
    }

    /// Stops the server gracefully and waits until it has stopped.
    func stop() async {
        await group.triggerGracefulShutdown()
        await task.value
    }
}
