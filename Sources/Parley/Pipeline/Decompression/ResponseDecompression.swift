import HTTPTypes
import OpenAPIRuntime

/// How `gzip` and `deflate` response bodies are decoded: streamed, with limits so that a small compressed body
/// cannot inflate into gigabytes (a decompression bomb fails with ``ParleyError/Kind/bodyTooLarge``).
///
/// Requests without an `Accept-Encoding` field are sent with `Accept-Encoding: gzip, deflate` (`identity` when they
/// ask for a `Range`: a range of compressed bytes cannot be inflated on its own). A response whose
/// `Content-Encoding` is `gzip`, `x-gzip` or `deflate` (alone, or with `identity`) comes back without its
/// `Content-Encoding` and `Content-Length` fields, with a body inflated chunk by chunk as it is read, in constant
/// memory; other codings (`br`, layered codings) are left as they arrived. `deflate` is accepted zlib-wrapped (as
/// RFC 9110 says) and raw (as some servers send it). Responses without a body (`HEAD`, 204, 304) pass untouched.
///
/// Reading the inflated body fails with a ``ParleyError`` of kind:
/// - ``ParleyError/Kind/bodyTooLarge`` when it inflates past ``maxSize``, or past 1 MiB with a ratio above
///   ``maxRatio``; reading stops at most 64 KiB past the limit.
/// - ``ParleyError/Kind/decoding`` when the compressed bytes are corrupt (zlib rejects them, bytes follow the end of
///   the stream): the server sent what it meant to, and it is not valid.
/// - ``ParleyError/Kind/transport`` when the body ends before its compressed stream does: the bytes were cut off on
///   the way (the connection or the server ended the body early), as for any other body that ends short.
///
/// On the URLSession transport, URLSession inflates `gzip` and `deflate` itself, and the transport applies these
/// limits to what it inflated; since it cannot see how many compressed bytes have arrived, the ratio is taken
/// against the whole compressed body (its `Content-Length`, or 1 MiB without one), so a bomb inflates further
/// there before it fails with ``ParleyError/Kind/bodyTooLarge``.
public struct ResponseDecompression: Sendable {
    /// The most bytes a body may inflate to.
    public var maxSize: Int64
    /// The most a body may grow by inflating (inflated bytes over compressed bytes), checked once it has
    /// inflated past 1 MiB. `Int.max` turns the check off.
    public var maxRatio: Int

    /// Decoding with limits: at most `maxSize` bytes (default 1 GiB) and a ratio of at most `maxRatio` (default 100).
    public init(maxSize: Int64 = 1 << 30, maxRatio: Int = 100) {
        self.maxSize = maxSize
        self.maxRatio = maxRatio
    }

    /// Adds `Accept-Encoding: gzip, deflate` unless the request sets its own (`identity` for a `Range` request).
    func prepare(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        if request.headerFields.isEmpty {
            // The common request without fields shares one (no allocation per call).
            request.headerFields = Self.acceptingCompressed
            return request
        }
        guard request.headerFields[.acceptEncoding] == nil else { return request }
        request.headerFields[.acceptEncoding] = request.headerFields[.range] == nil ? "gzip, deflate" : "identity"
        return request
    }

    /// The fields of a request that had none, once prepared.
    private static let acceptingCompressed: HTTPFields = [.acceptEncoding: "gzip, deflate"]

    /// The response with its body decoded when its `Content-Encoding` is `gzip`, `x-gzip` or `deflate`.
    func decode(_ response: HTTPResponse, body: HTTPBody?) throws -> (HTTPResponse, HTTPBody?) {
        guard let body, let coding = Self.coding(of: response) else { return (response, body) }
        let code = response.status.code
        if code == 204 || code == 304 || (100..<200).contains(code) { return (response, body) }
        if case .known(let length) = body.length, length == 0 { return (response, body) }
        var decoded = response
        decoded.headerFields[.contentEncoding] = nil
        decoded.headerFields[.contentLength] = nil
        let inflating = InflatingBody(upstream: body, coding: coding, limits: self, response: response)
        return (decoded, HTTPBody(inflating, length: .unknown, iterationBehavior: .single))
    }

    /// The one coding this decodes that `response` names (`identity` aside), or `nil`.
    static func coding(of response: HTTPResponse) -> InflatingBody.Coding? {
        let names = response.headerFields[values: .contentEncoding]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingHTTPWhitespace().lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard names.count == 1 else { return nil }
        switch names[0] {
        case "gzip", "x-gzip": return .gzip
        case "deflate": return .deflate
        default: return nil
        }
    }
}
