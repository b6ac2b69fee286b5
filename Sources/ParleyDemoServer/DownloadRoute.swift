import HTTPTypes
import Hummingbird
import NIOCore
import Parley

/// `GET /download` (a deterministic body with `Range`/`If-Range` support and fault injection) and
/// `GET /written` (the back-pressure probe). See ``DownloadOptions`` for the query parameters.
///
/// Byte `i` of the full body is `UInt8(i % 251)`, as for `/bytes`; it is written in 64 KiB chunks
/// with back-pressure. A single `bytes` range is served with 206 and `Content-Range`, one that
/// selects nothing with 416 and `Content-Range: bytes */SIZE`; a malformed or multi-range header,
/// or an `If-Range` that matches neither the `ETag` nor the `Last-Modified` date, gives 200 in full.
enum DownloadRoute {
    /// Registers `/download` and `/written` on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard, probe: WriteProbe) {
        router.get("download") { request, context -> Response in
            let options: DownloadOptions
            do throws(QueryError) {
                options = try DownloadOptions(RequestTarget(request).queryItems, headers: request.headers)
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            return self.response(to: request, options: options, channel: context.channel, events: events, probe: probe)
        }
        router.get("written") { request, _ -> Response in
            guard let key = RequestTarget(request).queryItems.first("key") else {
                return DemoResponses.error("query parameter 'key' is required", status: .badRequest)
            }
            let (written, queued, blocked, state) = await probe.waitUntilBlocked(key)
            return try DemoResponses.json(WrittenReport(written: written, queued: queued, blocked: blocked, state: state))
        }
    }

    private static func response(
        to request: Request,
        options: DownloadOptions,
        channel: any Channel,
        events: EventBoard,
        probe: WriteProbe
    ) -> Response {
        var range = options.rangesEnabled ? RangeRequest(header: request.headers[.range], size: options.size) : .whole
        if range != .whole,
            !RangeRequest.ifRangeAllows(request.headers[.ifRange], etag: options.etag, lastModified: options.lastModified)
        {
            range = .whole
        }
        var headers: HTTPFields = [
            .contentType: "application/octet-stream",
            .eTag: options.etag,
            .lastModified: options.lastModified,
        ]
        if options.rangesEnabled { headers[.acceptRanges] = "bytes" }
        let status: HTTPResponse.Status
        let start: Int
        let count: Int
        switch range {
        case .unsatisfiable:
            var response = DemoResponses.error("range not satisfiable for \(options.size) bytes", status: .rangeNotSatisfiable)
            response.headers.append(contentsOf: headers.filter { $0.name != .contentType })
            response.headers[.contentRange] = "bytes */\(options.size)"
            return response
        case .partial(let bytes):
            (status, start, count) = (.partialContent, bytes.lowerBound, bytes.count)
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(options.size)"
        case .whole:
            (status, start, count) = (.ok, 0, options.size)
        }
        if let key = options.key { probe.begin(key, channel: channel) }
        let body = ResponseBody(contentLength: options.chunked ? nil : count) { writer in
            try await events.closingOnStop(channel) {
                let stopAt = min(count, options.cutAfter ?? count)
                var offset = 0
                while offset < stopAt {
                    if events.hasFired(.stopping) { throw DemoServerError.serverStopping }
                    let length = min(StreamingRoutes.chunkSize, stopAt - offset)
                    guard let chunk = StreamingRoutes.patternChunk(at: start + offset, length: length) else { break }
                    if let key = options.key {
                        try await probe.record(key, bytes: length) { try await writer.write(chunk) }
                    } else {
                        try await writer.write(chunk)
                    }
                    offset += length
                    // A write completes once NIO has the bytes, and the writer learns that the connection stopped
                    // being writable only when the event loop has run the writes queued before: while the loop lags
                    // (a busy machine), this loop handed a whole 1 GiB body to NIO for a reader that took 4 MiB.
                    if offset % Self.catchUpInterval < length { await channel.eventLoop.caughtUp() }
                }
                if stopAt < count {
                    try await self.cut(channel)
                }
                try await writer.finish(nil)
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Ends the response mid-body: shuts the connection's output down once everything written so
    /// far has been flushed (the client sees the connection end before `Content-Length` bytes),
    /// then throws so that Hummingbird closes the connection.
    static func cut(_ channel: any Channel) async throws -> Never {
        try? await channel.close(mode: .output)
        throw DemoServerError.intentionalAbort
    }

    /// How many body bytes are written between two waits for the connection's event loop to catch up.
    static let catchUpInterval = 1 << 20

    /// Body of a `/written` answer.
    private struct WrittenReport: Encodable {
        /// Body bytes written to the socket.
        let written: Int
        /// Body bytes the response handed to NIO that are still in the server's outbound buffer.
        let queued: Int
        let blocked: Bool
        /// What the writer was doing when the wait ended, in words.
        let state: String
    }
}

extension EventLoop {
    /// Returns once the loop has run every task queued on it before this call (one checked continuation, resumed on the
    /// loop).
    func caughtUp() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            self.execute { continuation.resume() }
        }
    }
}
