#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Client {
    /// A client's settings. Every field has a production default.
    public struct Configuration: Sendable {
        /// Header fields sent with every request; an endpoint's field of the same name replaces them.
        public var headers: Headers
        /// Encodes ``RequestBody/json(_:encoder:)`` bodies that do not bring their own encoder.
        public var jsonEncoder: JSONEncoder
        /// Decodes JSON responses for decoders that do not bring their own.
        public var jsonDecoder: JSONDecoder
        /// Status codes accepted when the endpoint does not say. Default: 200…299.
        public var acceptableStatusCodes: StatusCodes
        /// Media types accepted when the endpoint does not say (`application/json`, `text/*`, `*/*`);
        /// `nil` (the default) accepts any.
        public var acceptableContentTypes: [String]?
        /// Validators run on every response before the endpoint's own.
        public var validators: [ResponseValidator]
        /// Time allowed for a whole call (middlewares, transport, body, decoding); `nil` (the default) for no
        /// overall limit. Endpoints can set their own. Without one, a call is still bounded by
        /// ``responseHeadTimeout`` (the wait for each response head), ``streamIdleTimeout`` (the gaps in a streamed
        /// body) and the transport's idle timeouts (`AsyncHTTPClientTransport`: 10 s to connect, 60 s without a
        /// byte read; `URLSession`: `timeoutIntervalForRequest`). A ``Client/download(_:to:resume:onProgress:)``
        /// must complete within it too. An overall timeout runs the call in a task group with a timer, which costs
        /// a few microseconds per call.
        public var timeout: Duration?
        /// The most bytes a buffering decoder collects; larger bodies fail with
        /// ``ParleyError/Kind/bodyTooLarge``. Default: 32 MiB.
        public var maxResponseBodySize: Int
        /// How redirects are followed. Default: up to 5 hops, no `https` → `http` downgrade, credentials kept
        /// only within the origin. Parley follows redirects itself, the same way on every transport.
        public var redirects: RedirectPolicy
        /// How `gzip` and `deflate` response bodies are decoded, with limits on the inflated size and ratio;
        /// `nil` leaves bodies as they arrive (and sends no `Accept-Encoding`). Default: on.
        public var decompression: ResponseDecompression?
        /// The most calls of this client in flight at once (each holds its slot until its response body has been
        /// read or dropped); further calls wait for a slot, in order, and can be cancelled while they wait.
        /// `nil` (the default) for no limit.
        public var maxConcurrentRequests: Int?
        /// The longest wait for a response head, counted from when the request has been handed to the transport (a
        /// wait for a free connection, connecting and the TLS handshake count; for a request body the transport
        /// streams, from when it has taken the body's last byte); once it has passed the call fails with
        /// ``ParleyError/Kind/timeout``. It
        /// applies to each request sent, including every redirect hop and retry. A server that sends its head one
        /// byte at a time keeps the transport's idle timeouts from ever firing, but not this. An endpoint that sets
        /// its own ``Endpoint/timeout`` (a long poll, a slow report) waits for its head up to that instead.
        /// Default: 60 seconds; `nil` waits without limit (only do that for servers you trust).
        public var responseHeadTimeout: Duration?
        /// The longest wait for the next chunk of a streamed response body (``Client/stream(_:)``,
        /// ``Client/events(_:lastEventID:reconnect:maxEventSize:)``, ``Client/download(_:to:resume:onProgress:)``);
        /// once it has passed, reading fails with ``ParleyError/Kind/timeout`` (an event stream then reconnects).
        /// Default: 60 seconds, longer than the keep-alive interval of common event-stream servers (15–30 s);
        /// `nil` waits without limit.
        public var streamIdleTimeout: Duration?
        /// The longest a buffered response body (the body of ``Client/send(_:)``, ``Client/response(for:)`` and
        /// uploads, read for decoding or discarded) may take to arrive in full after its head; past it the call fails
        /// with ``ParleyError/Kind/timeout``. It stops a server that sends a body one byte at a time, which no idle
        /// timeout catches. It applies only to calls without an overall timeout (the endpoint's
        /// ``Endpoint/timeout`` or ``timeout``), which bounds the body too. Streams and downloads are not bounded
        /// by it (see ``streamIdleTimeout``, and set ``timeout`` for downloads from servers you do not trust).
        /// Default: 5 minutes (a 32 MiB body at 1 Mbit/s takes about 4.5); `nil` waits without limit.
        public var responseBodyTimeout: Duration?
        /// The most bytes ``Client/download(_:to:resume:onProgress:)`` writes (counting a resumed file's earlier
        /// bytes); a larger body, or one that declares a larger `Content-Length`, fails the download with
        /// ``ParleyError/Kind/bodyTooLarge`` and removes the partial file. Default: 4 GiB; `nil` for no limit
        /// (a server could then fill the disk).
        public var maxDownloadSize: Int64?
        /// The cookies of this client: every request, every redirect hop included, sends the cookies of the jar that
        /// belong to its URL, and the cookies its response sets are stored there (RFC 6265; see ``CookieJar``). Cookies
        /// the endpoint or a middleware put in a `Cookie` field are sent too, before the jar's. `nil` (the default)
        /// keeps no cookies, on every transport.
        public var cookies: CookieJar? = nil
        /// The HTTP cache of this client (RFC 9111; see ``HTTPCache``): `GET` responses answered from it while fresh,
        /// revalidated when stale, on each redirect hop, under the client's middlewares (which see its answers, with a
        /// `Cache-Status`). `nil` (the default) caches nothing. Each stored answer belongs to the credentials its request
        /// carried (``sensitiveFields``); a client with one of Parley's auth middlewares among its
        /// ``Client/requestMiddlewares`` (below the cache, which could not see the credential) does not use its cache.
        public var cache: HTTPCache? = nil
        /// The header fields and query items whose values are secrets (``SensitiveFields``): written `<redacted>` by
        /// the logging and tracing middlewares, in errors and in their ``ParleyError/curlCommand``, and part of the
        /// variant of every answer ``cache`` stores (as a fingerprint), so that no user of the client gets an answer
        /// stored for another. The credential lists of ``redirects``, and whatever Parley's auth middlewares add, count
        /// too. Default: ``SensitiveFields/default`` (`Authorization`, `Cookie`, `X-API-Key`, `X-Auth-Token`, …;
        /// `api_key`, `access_token`, `token`, `signature`, …).
        public var sensitiveFields: SensitiveFields = .default

        /// The defaults, with any field overridden.
        public init(
            headers: Headers = [:],
            jsonEncoder: JSONEncoder = JSONEncoder(),
            jsonDecoder: JSONDecoder = JSONDecoder(),
            acceptableStatusCodes: StatusCodes = .successful,
            acceptableContentTypes: [String]? = nil,
            validators: [ResponseValidator] = [],
            timeout: Duration? = nil,
            maxResponseBodySize: Int = 32 * 1024 * 1024,
            redirects: RedirectPolicy = RedirectPolicy(),
            decompression: ResponseDecompression? = ResponseDecompression(),
            maxConcurrentRequests: Int? = nil,
            responseHeadTimeout: Duration? = .seconds(60),
            streamIdleTimeout: Duration? = .seconds(60),
            responseBodyTimeout: Duration? = .seconds(300),
            maxDownloadSize: Int64? = 4 << 30
        ) {
            self.headers = headers
            self.jsonEncoder = jsonEncoder
            self.jsonDecoder = jsonDecoder
            self.acceptableStatusCodes = acceptableStatusCodes
            self.acceptableContentTypes = acceptableContentTypes
            self.validators = validators
            self.timeout = timeout
            self.maxResponseBodySize = maxResponseBodySize
            self.redirects = redirects
            self.decompression = decompression
            self.maxConcurrentRequests = maxConcurrentRequests
            self.responseHeadTimeout = responseHeadTimeout
            self.streamIdleTimeout = streamIdleTimeout
            self.responseBodyTimeout = responseBodyTimeout
            self.maxDownloadSize = maxDownloadSize
        }
    }
}
