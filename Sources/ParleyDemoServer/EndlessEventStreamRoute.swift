import Hummingbird
import HummingbirdCore
import NIOCore
import Parley

/// `GET /sse/forever?key=K` and `GET /connections/closed?key=K`: an event stream that never ends on
/// its own, and a way for a test to learn that the client closed it.
///
/// `/sse/forever` sends `data: hello` at once, then a `: keep-alive` comment every `every=MS`
/// milliseconds (default 1000), each written with back-pressure. When the client closes the
/// connection (seen by Hummingbird's inbound-close handler or a failed write), the key is recorded as
/// ``DemoEvent/streamClosed(_:)``; `/connections/closed` waits up to `wait=S` seconds (default 10)
/// for that and answers `{"closed": true|false}`.
enum EndlessEventStreamRoute {
    /// Registers the two routes on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard) {
        router.get("sse/forever") { request, context -> Response in
            let query = RequestTarget(request).queryItems
            let every: Int
            do throws(QueryError) {
                every = try query.int("every", in: 1...3_600_000) ?? 1000
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let key = query.first("key")
            if let key { events.forget(.streamClosed(key)) }
            return Response(
                status: .ok,
                headers: [.contentType: EventStreamRoutes.contentType, .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    try await events.closingOnStop(context.channel) {
                        try await self.writeForever(request, key: key, every: .milliseconds(every), to: &writer, events: events)
                    }
                }
            )
        }
        router.get("connections/closed") { request, _ -> Response in
            let query = RequestTarget(request).queryItems
            guard let key = query.first("key") else {
                return DemoResponses.error("query parameter 'key' is required", status: .badRequest)
            }
            let seconds: Int
            do throws(QueryError) {
                seconds = try query.int("wait", in: 0...3600) ?? 10
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let closed = await events.wait(forAnyOf: [.streamClosed(key)], timeout: .seconds(seconds))
            return try DemoResponses.json(["closed": closed])
        }
    }

    /// Writes the event and then comments until the client goes away or the server stops; always throws.
    private static func writeForever(
        _ request: Request,
        key: String?,
        every interval: Duration,
        to writer: inout any ResponseBodyWriter,
        events: EventBoard
    ) async throws {
        let token = events.makeToken()
        defer { events.forget(.inboundClosed(token)) }
        let recordClosed: @Sendable () -> Void = {
            guard let key, !events.hasFired(.stopping) else { return }
            events.fire(.streamClosed(key))
        }
        try await request.body.consumeWithInboundCloseHandler { (_: RequestBody) async throws -> Void in
            var message = ByteBuffer(string: "data: hello\n\n")
            while true {
                if events.hasFired(.stopping) { throw DemoServerError.serverStopping }
                if events.hasFired(.inboundClosed(token)) { throw DemoServerError.clientDisconnected }
                do {
                    try await writer.write(message)
                } catch {
                    recordClosed()
                    throw error
                }
                message = ByteBuffer(string: ": keep-alive\n")
                await events.wait(forAnyOf: [.stopping, .inboundClosed(token)], timeout: interval)
            }
        } onInboundClosed: {
            events.fire(.inboundClosed(token))
            recordClosed()
        }
    }
}
