import Hummingbird
import NIOCore
import Parley

/// `GET /ndjson`: newline-delimited JSON (`application/x-ndjson`), line `k` being
/// `{"n":k,"name":"item-k"}` for k in 0..<count.
///
/// Query: `count=N` (default 10); `crlf=true` ends lines with CRLF instead of LF;
/// `trailingNewline=false` leaves the last line unterminated; `chunk=B` writes the body in writes of
/// exactly B bytes (the last one shorter), so lines straddle writes; `delay=MS` waits between
/// writes (default 0); `badLine=K` replaces line K with the invalid JSON `{"n": oops}`.
enum NDJSONRoute {
    /// Registers `GET /ndjson` on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard) {
        router.get("ndjson") { request, context -> Response in
            let query = RequestTarget(request).queryItems
            let count: Int
            let chunk: Int
            let delay: Int
            let badLine: Int?
            do throws(QueryError) {
                count = try query.int("count", in: 0...Int.max) ?? 10
                chunk = try query.int("chunk", in: 1...Int.max) ?? StreamingRoutes.chunkSize
                delay = try query.int("delay", in: 0...60_000) ?? 0
                badLine = try query.int("badLine", in: 0...Int.max)
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let separator = query.first("crlf") == "true" ? "\r\n" : "\n"
            let trailingNewline = query.first("trailingNewline") != "false"
            return Response(
                status: .ok,
                headers: [.contentType: "application/x-ndjson"],
                body: ResponseBody { writer in
                    try await events.closingOnStop(context.channel) {
                        var pending: [UInt8] = []
                        for index in 0..<count {
                            let line = index == badLine ? "{\"n\": oops}" : "{\"n\":\(index),\"name\":\"item-\(index)\"}"
                            pending.append(contentsOf: line.utf8)
                            if index < count - 1 || trailingNewline { pending.append(contentsOf: separator.utf8) }
                            while pending.count >= chunk {
                                try await self.write(pending.prefix(chunk), to: &writer, events: events, delay: delay)
                                pending.removeFirst(chunk)
                            }
                        }
                        if !pending.isEmpty {
                            try await self.write(pending[...], to: &writer, events: events, delay: delay)
                        }
                        try await writer.finish(nil)
                    }
                }
            )
        }
    }

    private static func write(
        _ bytes: ArraySlice<UInt8>,
        to writer: inout any ResponseBodyWriter,
        events: EventBoard,
        delay: Int
    ) async throws {
        if events.hasFired(.stopping) { throw DemoServerError.serverStopping }
        try await writer.write(ByteBuffer(bytes: bytes))
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
    }
}
