import Foundation
import HTTPTypes

extension URLSessionTransport {
    /// The content codings URLSession decodes itself before it hands the body over: `gzip` (and its alias
    /// `x-gzip`) and `deflate` everywhere, `br` on Apple platforms too. (On Linux, libcurl built with brotli or zstd
    /// decodes `br` or `zstd` as well; such a response keeps its `Content-Encoding`, though its bytes are decoded.)
    static let sessionDecodedCodings: Set<String> = {
        #if canImport(Darwin)
            ["gzip", "x-gzip", "deflate", "br"]
        #else
            ["gzip", "x-gzip", "deflate"]
        #endif
    }()

    /// `response` without its `Content-Encoding` and `Content-Length` when URLSession has decoded the body: the
    /// bytes handed over are no longer in that coding nor of that length, and Parley's own decompression must not
    /// inflate them a second time.
    static func removingSessionDecodedCoding(_ response: HTTPResponse) -> HTTPResponse {
        let codings = response.headerFields[values: .contentEncoding]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty, codings.allSatisfy(sessionDecodedCodings.contains) else { return response }
        var response = response
        response.headerFields[.contentEncoding] = nil
        response.headerFields[.contentLength] = nil
        return response
    }
}
