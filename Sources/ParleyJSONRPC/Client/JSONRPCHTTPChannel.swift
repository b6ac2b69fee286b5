import HTTPTypes
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// JSON-RPC over HTTP: each message is a `POST` through a Parley ``/Parley/Client``, so the client's middlewares
/// (auth, retries, logging) and its transport apply.
///
/// An HTTP 2xx with an empty body (such as 204) is accepted exactly when no answer is expected
/// (notifications). An HTTP error status fails with ``/Parley/ParleyError/Kind/unacceptableStatus``, unless its
/// body is a JSON-RPC error object, which then fails the call as ``Parley/ParleyError/Kind/jsonRPCError``.
public struct JSONRPCHTTPChannel: JSONRPCChannel {
    /// The client the messages go through.
    public let client: Client
    /// The path of the JSON-RPC endpoint, relative to the client's base URL.
    public let path: Path
    /// Extra header fields for every message.
    public let headers: Headers

    /// A channel posting to `path` on `client`.
    public init(client: Client, path: Path = "", headers: Headers = [:]) {
        self.client = client
        self.path = path
        self.headers = headers
    }

    /// Posts the message and reads the answer; the request is named "JSON-RPC POST" and not repeated.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await exchange(message, describing: JSONRPCExchange(methods: [], ids: ids, isRepeatable: false))
    }

    /// Posts the message, named after its method (the ``/Parley/Endpoint/name`` that logs, metrics and spans show),
    /// idempotent for the client's retries when every call in it is repeatable; reads the answer.
    public func exchange(_ message: Data, describing exchange: JSONRPCExchange) async throws(ParleyError) -> JSONRPCReply? {
        let ids = exchange.ids
        let post = Post(
            path: path,
            headers: exchange.headerFields.isEmpty ? headers : headers.merging(exchange.headerFields),
            message: message,
            name: exchange.operationName,
            isIdempotent: exchange.isRepeatable
        )
        let (data, head) = try await client.response(for: post)
        let status = head.status.code
        if (200...299).contains(status) {
            if ids.isEmpty { return nil }
            guard !data.isEmpty else {
                var error = ParleyError(
                    .jsonRPCProtocol,
                    "The server answered HTTP \(status) with an empty body, but the message waits for answers to the "
                        + "ids \(ids.map(\.description).joined(separator: ", ")). A JSON-RPC server answers every call that "
                        + "has an id; only notifications get no answer."
                )
                error = error.attaching(response: head, body: data)
                throw error
            }
            return JSONRPCReply(data: data, head: head)
        }
        if !ids.isEmpty, !data.isEmpty, JSONRPCCoding.looksLikeErrorResponse(data) {
            return JSONRPCReply(data: data, head: head)
        }
        var error = ParleyError(
            .unacceptableStatus,
            ids.isEmpty
                ? "The JSON-RPC server answered a notification with HTTP \(status) \(head.status.reasonPhrase)."
                : "The JSON-RPC server answered HTTP \(status) \(head.status.reasonPhrase) without a JSON-RPC error object."
        )
        error = error.attaching(response: head, body: data)
        throw error
    }

    struct Post: Endpoint {
        typealias Response = Data
        let path: Path
        let headers: Headers
        let message: Data
        let name: String
        let isIdempotent: Bool
        var method: HTTPRequest.Method { .post }
        var body: RequestBody { .bytes(message, contentType: "application/json") }
        var acceptableStatusCodes: StatusCodes? { .any }
    }
}
