import CParleySystem

/// A zlib deflate stream, for the demo server's compressed routes: whole bodies in one call, or pieces with flushes
/// in between (the gzip bomb).
final class DeflateStream {
    /// The framing around the deflate data.
    enum Format {
        /// gzip (RFC 1952): header, deflate data, CRC-32 and length.
        case gzip
        /// zlib (RFC 1950), what `Content-Encoding: deflate` means.
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

    // zlib keeps a pointer back to its stream and checks it on every call: the stream must not move.
    private let stream: UnsafeMutablePointer<z_stream>

    /// A stream at the best compression level; `nil` if zlib cannot start one.
    init?(format: Format) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let size = Int32(MemoryLayout<z_stream>.size)
        let status = deflateInit2_(
            stream,
            Z_BEST_COMPRESSION,
            Z_DEFLATED,
            format.windowBits,
            9,
            Z_DEFAULT_STRATEGY,
            zlibVersion(),
            size
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

    /// `input` compressed, followed by what `flush` (`Z_FULL_FLUSH`, `Z_FINISH`, …) writes; `nil` if zlib fails.
    func deflate(_ input: [UInt8], flush: Int32) -> [UInt8]? {
        let bound = Int(deflateBound(stream, UInt(input.count))) + 64
        var status = Z_OK
        var source = input
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            source.withUnsafeMutableBufferPointer { source in
                stream.pointee.next_in = source.baseAddress
                stream.pointee.avail_in = UInt32(source.count)
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(buffer.count)
                status = CParleySystem.deflate(stream, flush)
                count = buffer.count - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
        }
        let done = flush == Z_FINISH ? status == Z_STREAM_END : status == Z_OK
        return done ? output : nil
    }

    /// `input` compressed in `format` in one call; `nil` if zlib fails (it does not for valid input).
    static func compress(_ input: [UInt8], format: Format) -> [UInt8]? {
        DeflateStream(format: format)?.deflate(input, flush: Z_FINISH)
    }
}
