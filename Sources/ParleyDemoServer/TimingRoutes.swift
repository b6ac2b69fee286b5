import Hummingbird
import HummingbirdCore
import NIOCore
import Parley

/// Routes that take time or never finish: `/slow`, `/hang`, `/hang-headers` and `/hang-status/{id}`.
///
/// All of them end soon after the server starts stopping (``DemoEvent/stopping``), so that a
/// graceful stop never waits long for them: `/slow` completes if at most ``slowStopGrace`` of
/// its nap is left and otherwise drops its connection; the hanging routes drop theirs at once.
/// The hanging routes notice a client closing its connection via Hummingbird's inbound-close
/// handler and record the request `id` as closed (see ``HangingResponse``).
enum TimingRoutes {
    /// Interval between the bytes written by `/hang`.
    static let hangTick = Duration.milliseconds(20)
    /// A `/slow` request still completes after `stop()` if at most this much of its nap is left.
    static let slowStopGrace = Duration.seconds(1)

    /// Registers the timing routes on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard) {
        router.get("slow") { request, context -> Response in
            let milliseconds: Int
            do throws(QueryError) {
                milliseconds = try RequestTarget(request).queryItems.int("ms", in: 0...86_400_000) ?? 500
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let deadline = ContinuousClock.now + .milliseconds(milliseconds)
            if await events.wait(forAnyOf: [.stopping], timeout: .milliseconds(milliseconds)) {
                // Stopping: finish if the rest of the nap fits in the grace period, else abort.
                guard deadline - .now <= self.slowStopGrace else {
                    try await self.abort(context, because: .serverStopping)
                }
                try await Task.sleep(until: deadline)
            }
            try Task.checkCancellation()
            return try DemoResponses.json(["slept": milliseconds])
        }
        router.get("hang") { request, _ -> Response in
            let id = RequestTarget(request).queryItems.first("id")
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain"],
                body: ResponseBody { writer in
                    try await HangingResponse(request: request, id: id, events: events).writeDots(to: &writer)
                }
            )
        }
        router.get("hang-headers") { request, context -> Response in
            let id = RequestTarget(request).queryItems.first("id")
            try await HangingResponse(request: request, id: id, events: events).waitForClose()
            // The client is gone or the server is stopping: drop the connection without a response.
            try await self.abort(context, because: events.hasFired(.stopping) ? .serverStopping : .clientDisconnected)
        }
        router.get("hang-status/{id}") { request, context -> Response in
            // Path parameters are raw; decode so that ids match the (decoded) `id` query items.
            let id = QueryItems.lenientlyDecoded((context.parameters.get("id") ?? "")[...])
            let seconds: Double? =
                if let text = RequestTarget(request).queryItems.first("wait") { Double(text) } else { 5 }
            guard let seconds, (0...3600).contains(seconds) else {
                return DemoResponses.error("query parameter 'wait' must be a number of seconds in 0...3600", status: .badRequest)
            }
            let closed = await events.wait(forAnyOf: [.clientClosed(id)], timeout: .seconds(seconds))
            return try DemoResponses.json(HangStatus(id: id, closed: closed))
        }
    }

    /// Closes the request's connection and throws, so that no (further) response is written.
    private static func abort(_ context: DemoRequestContext, because reason: DemoServerError) async throws -> Never {
        try? await context.channel.close()
        throw reason
    }

    /// Body of `/hang-status/{id}`.
    private struct HangStatus: Encodable {
        let id: String
        let closed: Bool
    }
}
