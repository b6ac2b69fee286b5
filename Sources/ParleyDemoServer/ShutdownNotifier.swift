import ServiceLifecycle

/// A service that fires ``DemoEvent/stopping`` as soon as graceful shutdown begins.
///
/// It is placed after the application in the service group; since services are shut down in
/// reverse order, it runs first and ends hanging and slow requests before the HTTP server
/// starts waiting for in-flight requests to complete.
struct ShutdownNotifier: Service {
    /// The board on which `.stopping` is fired.
    let events: EventBoard

    func run() async throws {
        // Throws CancellationError if the group is cancelled instead; either way we are stopping.
        try? await gracefulShutdown()
        self.events.fire(.stopping)
    }
}
