import HTTPTypes
import Hummingbird
import NIOCore
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The JSON document returned by `/echo`, describing the request exactly as received.
struct EchoPayload: Encodable {
    /// Request method, e.g. `GET`.
    let method: String
    /// Raw (still percent-encoded) path without the query.
    let path: String
    /// Raw query string, or empty.
    let query: String
    /// Percent-decoded query items as `[name, value]` pairs.
    let queryItems: [[String]]
    /// Request header fields as `[lowercased-name, value]` pairs, in order.
    let headers: [[String]]
    /// Body as a UTF-8 string, or `nil` (encoded as `null`) if it is not valid UTF-8.
    let body: String?
    /// Base64 encoding of the body.
    let bodyBase64: String
    /// Body length in bytes.
    let bodyLength: Int

    private enum CodingKeys: String, CodingKey {
        case method, path, query, queryItems, headers, body, bodyBase64, bodyLength
    }

    /// Captures `request` with its already collected `body`.
    init(request: Request, body: ByteBuffer) {
        let target = RequestTarget(request)
        self.method = request.method.rawValue
        self.path = String(target.path)
        self.query = String(target.queryText ?? "")
        self.queryItems = target.queryItems.items.map { [$0.name, $0.value] }
        // HTTPTypes moves the first `Host` header into `authority`; put it back first.
        var headers: [[String]] = []
        if let authority = request.head.authority {
            headers.append(["host", authority])
        }
        headers += request.headers.map { [$0.name.canonicalName, $0.value] }
        self.headers = headers
        let bytes = Array(body.readableBytesView)
        self.body = String(validating: bytes, as: UTF8.self)
        self.bodyBase64 = Data(bytes).base64EncodedString()
        self.bodyLength = bytes.count
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.method, forKey: .method)
        try container.encode(self.path, forKey: .path)
        try container.encode(self.query, forKey: .query)
        try container.encode(self.queryItems, forKey: .queryItems)
        try container.encode(self.headers, forKey: .headers)
        try container.encode(self.body, forKey: .body)  // explicit `null` when not UTF-8
        try container.encode(self.bodyBase64, forKey: .bodyBase64)
        try container.encode(self.bodyLength, forKey: .bodyLength)
    }
}
