public import HTTPTypes

/// A typed description of one HTTP call: what to send and what comes back.
///
/// Only ``path`` is required; everything else has a default, so a GET endpoint is three lines:
///
/// ```swift
/// struct GetUser: Endpoint {
///     typealias Response = User
///     let id: Int
///     var path: Path { "/users/\(id)" }
/// }
/// ```
///
/// The `Response` type picks its decoder (``DefaultResponseDecoder``): `Decodable` types decode as JSON,
/// `String` as UTF-8 text, `Data` as raw bytes, `Void` discards the body, and `Optional` of a `Decodable`
/// type is `nil` exactly when the body is empty. Provide ``decoder`` yourself to decode any other way; an endpoint
/// whose `Response` is none of these types must provide one, or it does not compile.
public protocol Endpoint<Response>: Sendable {
    /// The value a successful call returns.
    associatedtype Response: Sendable
    /// The decoder that turns the response into a ``Response``.
    associatedtype Decoder: ResponseDecoder<Response> = DefaultResponseDecoder<Response>

    /// The HTTP method. Default: GET.
    var method: HTTPRequest.Method { get }
    /// The path, relative to the client's base URL. Interpolated values are percent-encoded as one segment.
    var path: Path { get }
    /// Query items, in order. Default: none.
    var query: Query { get }
    /// Header fields. A field here replaces the client's default field of the same name. Default: none.
    var headers: Headers { get }
    /// The request body. Default: ``RequestBody/none``.
    var body: RequestBody { get }
    /// The decoder for the response body.
    var decoder: Decoder { get }
    /// Status codes accepted for this endpoint; `nil` (the default) uses the client's.
    var acceptableStatusCodes: StatusCodes? { get }
    /// Media types accepted for this endpoint; `nil` (the default) uses the client's.
    var acceptableContentTypes: [String]? { get }
    /// Extra validators that run after the client's validators. Default: none.
    var validators: [ResponseValidator] { get }
    /// The time allowed for the whole call; `nil` (the default) uses the client's timeout. When set, it also replaces
    /// the client's ``Client/Configuration/responseHeadTimeout`` for this endpoint's calls.
    var timeout: Duration? { get }
    /// A short stable name for logs, metrics and spans. Default: the type's name. Every middleware and the transport
    /// receive it as the `operationID` of each request of the call, and ``CallContext/endpointName`` holds it.
    var name: String { get }
    /// Whether sending the request twice has the same effect as sending it once, so that ``RetryMiddleware`` and a
    /// 307/308 redirect may send it again. Default: the method's (GET, HEAD, PUT, DELETE, OPTIONS and TRACE
    /// are idempotent). Return `true` for a POST the server deduplicates (an `Idempotency-Key` header).
    var isIdempotent: Bool { get }
}

extension Endpoint {
    /// GET.
    public var method: HTTPRequest.Method { .get }
    /// No query items.
    public var query: Query { [] }
    /// No header fields.
    public var headers: Headers { [:] }
    /// No body.
    public var body: RequestBody { .none }
    /// The client's status codes.
    public var acceptableStatusCodes: StatusCodes? { nil }
    /// The client's content types.
    public var acceptableContentTypes: [String]? { nil }
    /// No extra validators.
    public var validators: [ResponseValidator] { [] }
    /// The client's timeout.
    public var timeout: Duration? { nil }
    /// The type's name (computed once per type).
    public var name: String { EndpointNames.name(of: Self.self) }
    /// The method's idempotency.
    public var isIdempotent: Bool { CallContext.isIdempotent(method) }
}
