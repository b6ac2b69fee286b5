public import HTTPTypes
import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A request as a transport received it: by ``InMemoryTransport`` or through a ``RequestRecorder``, after every
/// middleware.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The request head: method, scheme, authority, path with query, header fields.
    public let head: HTTPRequest
    /// The whole body (empty when there was none).
    public let body: Data
    /// The operation ID (a Parley endpoint's `name`).
    public let operationID: String
    /// Values of `:name` segments of the matched route, percent-decoded (``InMemoryTransport`` only).
    public internal(set) var parameters: [String: String] = [:]
    /// The response head the transport returned, or `nil` when it failed (or has not answered yet).
    public internal(set) var response: HTTPResponse?

    init(head: HTTPRequest, body: Data, operationID: String) {
        self.head = head
        self.body = body
        self.operationID = operationID
    }

    /// This request with `body` as its body.
    func with(body: Data) -> RecordedRequest {
        var copy = RecordedRequest(head: head, body: body, operationID: operationID)
        copy.parameters = parameters
        copy.response = response
        return copy
    }

    /// The method.
    public var method: HTTPRequest.Method { head.method }

    /// The path without the query, still percent-encoded.
    public var path: String {
        let full = head.path ?? "/"
        return full.firstIndex(of: "?").map { String(full[..<$0]) } ?? full
    }

    /// The query items, percent-decoded, in order.
    public var queryItems: [(name: String, value: String?)] {
        guard let full = head.path, let mark = full.firstIndex(of: "?") else { return [] }
        return Query(percentEncoded: String(full[full.index(after: mark)...])).items.map { ($0.name, $0.value) }
    }

    /// The first value of the header field `name`.
    public func header(_ name: HTTPField.Name) -> String? {
        head.headerFields[name]
    }

    /// The first value of the header field named `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { head.headerFields[$0] }
    }

    /// Every value of the header field `name`, in order.
    public func headers(_ name: HTTPField.Name) -> [String] {
        head.headerFields[values: name]
    }

    /// The value of the first query item named `name` (`nil` when absent or without a value).
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var bodyText: String? {
        String(validating: body, as: UTF8.self)
    }

    /// `GET /users/1?page=2`, with `→ 200` once answered.
    public var description: String {
        let line = "\(method.rawValue) \(head.path ?? "/")"
        return response.map { "\(line) → \($0.status.code)" } ?? line
    }

    /// The body decoded as JSON.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }
}
