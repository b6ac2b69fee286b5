import CParleySystem

/// One zlib deflate stream (gzip or zlib-wrapped), freed with `deflateEnd` when it is dropped.
///
/// Owned by one iterator of a compressed request body and used only from it, so it is deliberately not `Sendable`.
/// The `z_stream` lives at a fixed address: zlib keeps a pointer back to it.
final class Deflater {
    private let stream: UnsafeMutablePointer<z_stream>

    /// A stream writing gzip (`gzip: true`, RFC 1952) or zlib-wrapped deflate (RFC 1950, HTTP's `deflate`); `nil` when
    /// zlib cannot start one (out of memory).
    init?(gzip: Bool, level: Int32) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let windowBits: Int32 = gzip ? 15 + 16 : 15
        let status = deflateInit2_(
            stream,
            level,
            Z_DEFLATED,
            windowBits,
            8,
            Z_DEFAULT_STRATEGY,
            zlibVersion(),
            Int32(MemoryLayout<z_stream>.size)
        )
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` (all of it); with `finish`, ends the stream. Returns the compressed bytes produced.
    func deflate(_ input: some Collection<UInt8>, finish: Bool) -> [UInt8] {
        var output: [UInt8] = []
        var bytes = Array(input)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        bytes.withUnsafeMutableBufferPointer { inputBuffer in
            stream.pointee.next_in = inputBuffer.baseAddress
            stream.pointee.avail_in = UInt32(clamping: inputBuffer.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                    stream.pointee.next_out = outputBuffer.baseAddress
                    stream.pointee.avail_out = UInt32(clamping: outputBuffer.count)
                    let status = CParleySystem.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    output.append(contentsOf: outputBuffer.prefix(outputBuffer.count - Int(stream.pointee.avail_out)))
                    return status
                }
                // Done when zlib took all the input and (finishing) wrote the end, or (not finishing) has room left.
                if finish ? status == Z_STREAM_END : stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { break }
                if status != Z_OK && status != Z_BUF_ERROR { break }  // Z_STREAM_ERROR: cannot happen with a valid stream
            }
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        return output
    }
}
