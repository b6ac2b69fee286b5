import CParleySystem
import HTTPTypes
import OpenAPIRuntime

/// A `gzip` or `deflate` response body, inflated chunk by chunk as it is read, under the limits of a
/// ``ResponseDecompression``.
///
/// Memory stays constant: each compressed chunk is inflated into outputs of at most 64 KiB, and the limits are
/// checked before each output is handed on, so a bomb stops at most 64 KiB past a limit. The zlib stream belongs to
/// the one iterator (the body can be read once) and is freed when the iterator ends, fails or is dropped.
struct InflatingBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    /// The content codings this body decodes.
    enum Coding: Sendable {
        case gzip, deflate

        /// The coding's name in messages.
        var name: String {
            switch self {
            case .gzip: "gzip"
            case .deflate: "deflate"
            }
        }
    }

    /// The most inflated bytes one output holds.
    static let outputSize = 64 * 1024
    /// The ratio limit applies once the body has inflated past this many bytes.
    static let ratioThreshold: Int64 = 1 << 20

    let upstream: HTTPBody
    let coding: Coding
    let limits: ResponseDecompression
    /// The response as it arrived (with its `Content-Encoding`), attached to errors.
    let response: HTTPResponse

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self, upstream: upstream.makeAsyncIterator())
    }

    /// Reads compressed chunks from the upstream body and hands on inflated ones.
    struct Iterator: AsyncIteratorProtocol {
        let body: InflatingBody
        var upstream: HTTPBody.AsyncIterator
        /// Compressed bytes received and not yet consumed by zlib.
        var input: ArraySlice<UInt8> = []
        /// The zlib stream, made on the first compressed bytes and dropped (freed) at the end or on failure.
        var inflater: Inflater?
        /// Compressed bytes received from upstream.
        var received: Int64 = 0
        /// Compressed bytes zlib consumed.
        var compressed: Int64 = 0
        /// Inflated bytes handed on.
        var inflated: Int64 = 0
        /// Whether the current (gzip: last) member ended, so that more input is a new member or garbage.
        var memberEnded = false
        /// How many gzip members ended before the current one.
        var membersEnded = 0
        /// Inflated bytes of the current member (a later member failing before any is trailing garbage).
        var memberInflated: Int64 = 0
        var finished = false

        init(body: InflatingBody, upstream: HTTPBody.AsyncIterator) {
            self.body = body
            self.upstream = upstream
        }

        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                return try await step()
            } catch {
                finished = true
                inflater = nil
                throw error
            }
        }

        private mutating func step() async throws -> ArraySlice<UInt8>? {
            while !finished {
                if input.isEmpty || (inflater == nil && body.coding == .deflate && input.count < 2) {
                    guard let chunk = try await upstream.next() else { return try end() }
                    received += Int64(chunk.count)
                    input = input.isEmpty ? chunk : ArraySlice(Array(input) + chunk)
                    continue
                }
                if memberEnded {
                    guard body.coding == .gzip, let inflater else { throw trailingGarbage() }
                    do {
                        try inflater.reset()
                    } catch {
                        throw corrupt(status: error.status, message: error.message)
                    }
                    memberEnded = false
                    membersEnded += 1
                    memberInflated = 0
                }
                if inflater == nil {
                    let bits = body.coding == .gzip ? Inflater.gzipOrZlib : Self.deflateWindowBits(input)
                    do {
                        inflater = try Inflater(windowBits: bits)
                    } catch {
                        throw corrupt(status: error.status, message: error.message)
                    }
                }
                if let output = try inflateSome() { return output }
            }
            return nil
        }

        /// One call of zlib on the pending input: the inflated bytes, if any, after checking the limits.
        private mutating func inflateSome() throws(ParleyError) -> ArraySlice<UInt8>? {
            guard let inflater else { return nil }
            var step = Inflater.Step(consumed: 0, produced: 0, status: Z_OK)
            let output = [UInt8](unsafeUninitializedCapacity: InflatingBody.outputSize) { buffer, count in
                step = input.withUnsafeBytes { inflater.inflate($0, into: UnsafeMutableRawBufferPointer(buffer)) }
                count = step.produced
            }
            input = input.dropFirst(step.consumed)
            compressed += Int64(step.consumed)
            switch step.status {
            case Z_OK:
                break
            case Z_STREAM_END:
                memberEnded = true
            case Z_BUF_ERROR where input.isEmpty:
                break  // every byte received so far is consumed: more input is needed
            case Z_DATA_ERROR where membersEnded > 0 && memberInflated == 0 && step.produced == 0:
                throw trailingGarbage()
            default:
                throw corrupt(status: step.status, message: inflater.message)
            }
            if step.consumed == 0, step.produced == 0, !input.isEmpty, !memberEnded {
                throw corrupt(status: step.status, message: "zlib made no progress")
            }
            guard step.produced > 0 else { return nil }
            inflated += Int64(step.produced)
            memberInflated += Int64(step.produced)
            try checkLimits()
            return output[...]
        }

        /// The upstream body ended: the end of the body, or a truncated stream.
        private mutating func end() throws(ParleyError) -> ArraySlice<UInt8>? {
            finished = true
            inflater = nil
            // No bytes at all is an empty body (a server that labels one `gzip` sends nothing to inflate).
            guard memberEnded || received == 0 else { throw truncated() }
            return nil
        }

        /// Zlib-wrapped (RFC 1950, the standard) when the first two bytes are a zlib header, raw deflate otherwise.
        static func deflateWindowBits(_ input: ArraySlice<UInt8>) -> Int32 {
            let cmf = Int(input[input.startIndex])
            let flg = Int(input[input.startIndex + 1])
            let isZlibHeader = cmf & 0x0F == 8 && cmf >> 4 <= 7 && (cmf << 8 | flg) % 31 == 0
            return isZlibHeader ? Inflater.zlibWrapped : Inflater.rawDeflate
        }
    }
}
