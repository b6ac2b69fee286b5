#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import HTTPTypes
import Parley

/// A request as ``InMemoryTransport`` received it.
public struct RecordedRequest: Sendable {
    /// The request head: method, scheme, authority, path with query, header fields.
    public let head: HTTPRequest
    /// The whole body (empty when there was none).
    public let body: Data
    /// The operation ID (a Parley endpoint's `name`).
    public let operationID: String
    /// Values of `:name` segments of the matched route, percent-decoded.
    public internal(set) var parameters: [String: String] = [:]

    init(head: HTTPRequest, body: Data, operationID: String) {
        self.head = head
        self.body = body
        self.operationID = operationID
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

    /// The body decoded as JSON.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }
}
