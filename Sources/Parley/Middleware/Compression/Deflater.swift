import CParleySystem

/// One zlib deflate stream, freed with `deflateEnd` when it is dropped: the one zlib compressor, for compressed
/// request bodies and the demo server's compressed routes.
///
/// Owned by one user at a time (an iterator of a compressed request body, a route building a body), so it is
/// deliberately not `Sendable`. The `z_stream` lives at a fixed address: zlib keeps a pointer back to it.
package final class Deflater {
    /// The framing around the deflate data.
    package enum Format: Sendable {
        /// gzip (RFC 1952): header, deflate data, CRC-32 and length.
        case gzip
        /// zlib-wrapped deflate (RFC 1950), what `Content-Encoding: deflate` means.
        case zlib
        /// Raw deflate (RFC 1951), what some servers send as `deflate`.
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        }
    }

    /// What a ``deflate(_:flush:)`` call writes after the compressed input.
    package enum Flush: Sendable {
        /// Nothing forced: zlib may keep input back for the next call.
        case none
        /// Everything so far, ending on a byte boundary with the dictionary reset (`Z_FULL_FLUSH`).
        case full
        /// Everything, then the end of the stream (`Z_FINISH`).
        case finish

        var code: Int32 {
            switch self {
            case .none: Z_NO_FLUSH
            case .full: Z_FULL_FLUSH
            case .finish: Z_FINISH
            }
        }
    }

    private let stream: UnsafeMutablePointer<z_stream>

    /// A stream writing `format` at compression `level` (0-9); `nil` when zlib cannot start one (out of memory).
    package init?(format: Format, level: Int32) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream,
            level,
            Z_DEFLATED,
            format.windowBits,
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

    /// Compresses `input` (all of it), then does what `flush` asks. Returns the compressed bytes produced; `nil` when
    /// zlib fails, or refuses a flush that has nothing to do (a second flush with no input in between).
    package func deflate(_ input: some Collection<UInt8>, flush: Flush) -> [UInt8]? {
        var output: [UInt8] = []
        var bytes = Array(input)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var failed = false
        bytes.withUnsafeMutableBufferPointer { inputBuffer in
            stream.pointee.next_in = inputBuffer.baseAddress
            stream.pointee.avail_in = UInt32(clamping: inputBuffer.count)
            var first = true
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                    stream.pointee.next_out = outputBuffer.baseAddress
                    stream.pointee.avail_out = UInt32(clamping: outputBuffer.count)
                    let status = CParleySystem.deflate(stream, flush.code)
                    output.append(contentsOf: outputBuffer.prefix(outputBuffer.count - Int(stream.pointee.avail_out)))
                    return status
                }
                let tookAll = stream.pointee.avail_in == 0
                switch status {
                case Z_STREAM_END where flush == .finish:
                    break
                case Z_OK where flush == .finish || !tookAll || stream.pointee.avail_out == 0:
                    first = false
                    continue  // more to write: the output was full
                case Z_OK:
                    break
                case Z_BUF_ERROR where flush != .finish && tookAll && (flush == .none || !first):
                    break  // no progress possible: everything was written by the call before
                default:
                    failed = true  // a refused flush; Z_STREAM_ERROR cannot happen with a valid stream
                }
                break
            }
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        return failed ? nil : output
    }

    /// `input` compressed in `format` in one call (at the best level, 9, by default); `nil` if zlib fails (it does not
    /// for valid input).
    package static func compress(_ input: [UInt8], format: Format, level: Int32 = 9) -> [UInt8]? {
        Deflater(format: format, level: level)?.deflate(input, flush: .finish)
    }
}
