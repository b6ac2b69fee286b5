import HTTPTypes
import Hummingbird
import NIOCore
import Parley

/// Server-Sent Events: `GET /sse`, `GET /sse/stats` and `POST /sse/echo` (`text/event-stream`,
/// `Cache-Control: no-cache`). `/sse/forever` and `/connections/closed` are in ``EndlessEventStreamRoute``.
enum EventStreamRoutes {
    /// Content type of every event stream.
    static let contentType = "text/event-stream"
    /// `Last-Event-ID` request header.
    static let lastEventID = HTTPField.Name("Last-Event-ID")

    /// Registers the SSE routes on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard, stats: EventStreamStats) {
        router.get("sse") { request, context -> Response in
            let query = RequestTarget(request).queryItems
            let count: Int
            let retry: Int?
            let dropAfter: Int?
            let interval: Int
            do throws(QueryError) {
                count = try query.int("count", in: 0...Int.max) ?? 3
                retry = try query.int("retry", in: 0...Int.max)
                dropAfter = try query.int("dropAfter", in: 0...Int.max)
                interval = try query.int("interval", in: 0...60_000) ?? 0
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let lastID = self.lastEventID.flatMap { request.headers[$0] }
            if let key = query.first("key") { stats.record(key: key, lastEventID: lastID) }
            let start = lastID.flatMap { Int($0.trimmingHTTPWhitespace()) }.map { $0 + 1 } ?? 0
            guard start < count else {
                var response = Response(status: .noContent)
                response.headers[.contentLength] = nil
                return response
            }
            return Response(
                status: .ok,
                headers: [.contentType: self.contentType, .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    try await events.closingOnStop(context.channel) {
                        if let retry { try await writer.write(ByteBuffer(string: "retry: \(retry)\n\n")) }
                        for (sent, index) in (start..<count).enumerated() {
                            if sent == dropAfter { try await DownloadRoute.cut(context.channel) }
                            if events.hasFired(.stopping) { throw DemoServerError.serverStopping }
                            if sent > 0, interval > 0 { try await Task.sleep(for: .milliseconds(interval)) }
                            try await writer.write(ByteBuffer(string: "id: \(index)\nevent: tick\ndata: {\"n\":\(index)}\n\n"))
                        }
                        try await writer.finish(nil)
                    }
                }
            )
        }
        router.get("sse/stats") { request, _ -> Response in
            guard let key = RequestTarget(request).queryItems.first("key") else {
                return DemoResponses.error("query parameter 'key' is required", status: .badRequest)
            }
            return try DemoResponses.json(stats.entry(for: key))
        }
        router.post("sse/echo") { request, context -> Response in
            let query = RequestTarget(request).queryItems
            let chunk: Int?
            let delay: Int
            do throws(QueryError) {
                chunk = try query.int("chunk", in: 1...Int.max)
                delay = try query.int("delay", in: 0...60_000) ?? (chunk == nil ? 0 : 10)
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let body = try await request.body.collect(upTo: context.maxUploadSize)
            return Response(
                status: .ok,
                headers: [.contentType: self.contentType, .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    var remaining = body
                    var first = true
                    while remaining.readableBytes > 0,
                        let piece = remaining.readSlice(length: min(chunk ?? remaining.readableBytes, remaining.readableBytes))
                    {
                        if !first, delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
                        first = false
                        try await writer.write(piece)
                    }
                    try await writer.finish(nil)
                }
            )
        }
    }
}
