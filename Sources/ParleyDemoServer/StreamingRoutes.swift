import Hummingbird
import NIOCore
import Parley

/// Large, streamed responses: `/bytes` and `/large-json`. Bodies are produced in 64 KiB chunks and
/// written with back-pressure, so they are never held in memory as a whole.
enum StreamingRoutes {
    /// Chunk size of streamed bodies.
    static let chunkSize = 64 * 1024
    /// Length of the `/bytes` pattern period: byte `i` is `UInt8(i % 251)`.
    static let period = 251

    /// `chunkSize + period` pattern bytes; any chunk is a zero-copy slice at `offset % period`.
    private static let pattern: ByteBuffer = {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(chunkSize + period)
        for index in 0..<(chunkSize + period) {
            buffer.writeInteger(UInt8(index % period))
        }
        return buffer
    }()

    /// `length` (at most ``chunkSize``) pattern bytes starting at body offset `offset`, as a zero-copy slice.
    static func patternChunk(at offset: Int, length: Int) -> ByteBuffer? {
        self.pattern.getSlice(at: offset % self.period, length: length)
    }

    /// Registers the streaming routes on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard) {
        router.get("bytes") { request, context -> Response in
            let query = RequestTarget(request).queryItems
            let count: Int
            do throws(QueryError) {
                count = try query.int("n", in: 0...Int.max) ?? 1024
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let chunked = query.first("chunked") == "true"
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: chunked ? nil : count) { writer in
                    try await events.closingOnStop(context.channel) {
                        try await self.writeBytes(count: count, to: &writer, events: events)
                    }
                }
            )
        }
        router.get("large-json") { request, context -> Response in
            let items: Int
            do throws(QueryError) {
                items = try RequestTarget(request).queryItems.int("items", in: 0...100_000_000) ?? 10
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            return Response(
                status: .ok,
                headers: [.contentType: DemoResponses.jsonContentType],
                body: ResponseBody { writer in
                    try await events.closingOnStop(context.channel) {
                        try await self.writeLargeJSON(items: items, to: &writer, events: events)
                    }
                }
            )
        }
    }

    private static func writeBytes(count: Int, to writer: inout any ResponseBodyWriter, events: EventBoard) async throws {
        var offset = 0
        while offset < count {
            if events.hasFired(.stopping) { throw DemoServerError.serverStopping }
            let length = min(chunkSize, count - offset)
            guard let chunk = self.patternChunk(at: offset, length: length) else { break }
            try await writer.write(chunk)
            offset += length
        }
        try await writer.finish(nil)
    }

    private static func writeLargeJSON(items: Int, to writer: inout any ResponseBodyWriter, events: EventBoard) async throws {
        // Items are assembled in a byte array: the (optimised) standard library keeps this fast
        // even in debug builds.
        var chunk: [UInt8] = []
        chunk.reserveCapacity(chunkSize + 128)
        chunk.append(contentsOf: "{\"items\":[".utf8)
        for index in 0..<items {
            let digits = String(index).utf8  // small string: no allocation
            chunk.append(contentsOf: index == 0 ? "{\"id\":".utf8 : ",{\"id\":".utf8)
            chunk.append(contentsOf: digits)
            chunk.append(contentsOf: ",\"name\":\"item ".utf8)
            chunk.append(contentsOf: digits)
            chunk.append(contentsOf: "\"}".utf8)
            if chunk.count >= chunkSize {
                if events.hasFired(.stopping) { throw DemoServerError.serverStopping }
                try await writer.write(ByteBuffer(bytes: chunk))
                chunk.removeAll(keepingCapacity: true)
            }
        }
        chunk.append(contentsOf: "]}".utf8)
        try await writer.write(ByteBuffer(bytes: chunk))
        try await writer.finish(nil)
    }
}
