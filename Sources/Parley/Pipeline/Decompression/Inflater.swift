import CParleySystem

/// One zlib inflate stream (gzip, zlib-wrapped or raw deflate), freed with `inflateEnd` when it is dropped.
///
/// Owned by one ``InflatingBody`` iterator and used only from it, so it is deliberately not `Sendable`. The
/// `z_stream` lives at a fixed address: zlib keeps a pointer back to it and rejects a moved stream.
final class Inflater {
    /// What one ``inflate(_:into:)`` call did.
    struct Step {
        /// Compressed bytes zlib consumed.
        var consumed: Int
        /// Inflated bytes written to the output.
        var produced: Int
        /// zlib's return code (`Z_OK`, `Z_STREAM_END`, `Z_BUF_ERROR`, `Z_DATA_ERROR`, …).
        var status: Int32
    }

    /// zlib's window bits for a gzip stream, or a zlib-wrapped one, recognised by its header (15 + 32).
    static let gzipOrZlib: Int32 = 15 + 32
    /// zlib's window bits for a zlib-wrapped (RFC 1950) stream.
    static let zlibWrapped: Int32 = 15
    /// zlib's window bits for raw deflate (RFC 1951), as some servers send for `deflate`.
    static let rawDeflate: Int32 = -15

    private let stream: UnsafeMutablePointer<z_stream>

    /// A stream with `windowBits` (one of the constants above); fails with zlib's return code.
    init(windowBits: Int32) throws(InflaterFailure) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw InflaterFailure(status: status, message: nil)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates from `input` into `output` until one of them is used up or the stream ends. zlib keeps no pointer
    /// to either buffer past the call.
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Step {
        let inputCount = UInt32(clamping: input.count)
        let outputCount = UInt32(clamping: output.count)
        stream.pointee.next_in = input.baseAddress.map {
            UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
        }
        stream.pointee.avail_in = inputCount
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = outputCount
        let status = CParleySystem.inflate(stream, Z_NO_FLUSH)
        let step = Step(
            consumed: Int(inputCount - stream.pointee.avail_in),
            produced: Int(outputCount - stream.pointee.avail_out),
            status: status
        )
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return step
    }

    /// Starts a new stream with the same settings (the next member of a gzip body).
    func reset() throws(InflaterFailure) {
        let status = inflateReset(stream)
        guard status == Z_OK else { throw InflaterFailure(status: status, message: message) }
    }

    /// zlib's description of the last error, if it gave one.
    var message: String? {
        stream.pointee.msg.map { String(cString: $0) }
    }
}

/// zlib refused to start or reset a stream.
struct InflaterFailure: Error {
    /// zlib's return code.
    var status: Int32
    /// zlib's message, if any.
    var message: String?
}
