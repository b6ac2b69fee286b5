public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A response an ``InMemoryTransport`` route returns.
public struct StubResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body.
    public var body: Data

    /// A response with any status, header fields and body.
    public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: Data = Data()) {
        self.head = HTTPResponse(status: status, headerFields: headers)
        self.body = body
    }

    /// A JSON response of `value`.
    public static func json(
        _ value: some Encodable,
        status: HTTPResponse.Status = .ok,
        encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(status: status, headers: [.contentType: "application/json"], body: try encoder.encode(value))
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: HTTPResponse.Status = .ok) -> StubResponse {
        StubResponse(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// An empty response with `status`.
    public static func status(_ status: HTTPResponse.Status) -> StubResponse {
        StubResponse(status: status)
    }
}
