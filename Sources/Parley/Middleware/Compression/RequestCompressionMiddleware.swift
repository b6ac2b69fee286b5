public import HTTPTypes
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Compresses request bodies (opt-in): `gzip` or `deflate`, above a size, with `Content-Encoding` set, streaming (a
/// large upload is compressed as it is sent, never held whole).
///
/// ```swift
/// let client = Client(baseURL: api, middlewares: [.compressingRequests(.gzip, minimumSize: 1024)])
/// ```
///
/// Only bodies the server is known to accept compressed should be: many servers answer `415 Unsupported Media Type`
/// or read the bytes as they are. A body of known length below `minimumSize` goes as it is (compressing it would cost
/// more than it saves), and so does one that already has a `Content-Encoding`. A body of unknown length is
/// compressed. The compressed body can be sent again (a retry, a redirect) when its source can.
public struct RequestCompressionMiddleware: ClientMiddleware {
    /// The content codings it can apply.
    public enum Coding: String, Sendable {
        /// `gzip` (RFC 1952).
        case gzip
        /// `deflate`: zlib-wrapped deflate (RFC 1950), as HTTP's `deflate` is.
        case deflate
    }

    /// The coding applied.
    public let coding: Coding
    /// Bodies of known length below this many bytes go uncompressed.
    public let minimumSize: Int64
    /// zlib's compression level, 1 (fastest) to 9 (smallest); 6 by default.
    public let level: Int

    /// A middleware compressing bodies of at least `minimumSize` bytes with `coding`.
    public init(_ coding: Coding = .gzip, minimumSize: Int64 = 1024, level: Int = 6) {
        self.coding = coding
        self.minimumSize = max(0, minimumSize)
        self.level = min(9, max(1, level))
    }

    /// Compresses the body when it should be.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let body, request.headerFields[.contentEncoding] == nil else { return try await next(request, body, baseURL) }
        if case .known(let length) = body.length, length < minimumSize { return try await next(request, body, baseURL) }
        var request = request
        request.headerFields[.contentEncoding] = coding.rawValue
        request.headerFields[.contentLength] = nil
        let compressed = HTTPBody(
            CompressedBytes(source: body, gzip: coding == .gzip, level: Int32(level)),
            length: .unknown,
            iterationBehavior: body.iterationBehavior
        )
        return try await next(request, compressed, baseURL)
    }
}

extension ClientMiddleware where Self == RequestCompressionMiddleware {
    /// A ``RequestCompressionMiddleware``: `.compressingRequests(.gzip, minimumSize: 1024)`.
    public static func compressingRequests(
        _ coding: RequestCompressionMiddleware.Coding = .gzip,
        minimumSize: Int64 = 1024,
        level: Int = 6
    ) -> RequestCompressionMiddleware {
        RequestCompressionMiddleware(coding, minimumSize: minimumSize, level: level)
    }
}

/// The compressed bytes of a body: a new deflate stream per iteration.
private struct CompressedBytes: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let source: HTTPBody
    let gzip: Bool
    let level: Int32

    func makeAsyncIterator() -> Iterator {
        Iterator(source: source.makeAsyncIterator(), deflater: Deflater(format: gzip ? .gzip : .zlib, level: level))
    }

    struct Iterator: AsyncIteratorProtocol {
        var source: HTTPBody.AsyncIterator
        let deflater: Deflater?
        var finished = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let deflater else {
                throw ParleyError(.encoding, "zlib could not start compressing the request body (out of memory?).")
            }
            while !finished {
                guard let chunk = try await source.next() else {
                    finished = true
                    return ArraySlice(try Self.checked(deflater.deflate([], flush: .finish)))
                }
                let compressed = try Self.checked(deflater.deflate(chunk, flush: .none))
                if !compressed.isEmpty { return ArraySlice(compressed) }
            }
            return nil
        }

        /// `output`, unless zlib failed (it does not with a valid stream).
        private static func checked(_ output: [UInt8]?) throws(ParleyError) -> [UInt8] {
            guard let output else { throw ParleyError(.encoding, "zlib failed while compressing the request body.") }
            return output
        }
    }
}
