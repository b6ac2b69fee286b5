import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A response as an ``HTTPCache`` keeps it: the head, the body, and when it was asked for and received (for its
/// age), with the request header values its `Vary` names.
public struct CachedResponse: Sendable, Codable {
    /// The status code.
    public var status: Int
    /// The reason phrase.
    public var reasonPhrase: String
    /// The header fields, as name and value pairs in order.
    public var fields: [[String]]
    /// The body.
    public var body: Data
    /// When the request was sent.
    public var requestTime: Date
    /// When the response arrived (or was last revalidated).
    public var responseTime: Date
    /// The values of the request's fields named by the response's `Vary` (lower-case names), `nil` when absent.
    public var varied: [String: String?]

    /// The response head.
    var head: HTTPResponse {
        var response = HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reasonPhrase))
        for pair in fields where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { response.headerFields.append(HTTPField(name: name, value: pair[1])) }
        }
        return response
    }

    init(_ response: HTTPResponse, body: Data, requestTime: Date, responseTime: Date, varied: [String: String?]) {
        status = response.status.code
        reasonPhrase = response.status.reasonPhrase
        fields = response.headerFields.map { [$0.name.rawName, $0.value] }
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varied = varied
    }

    /// The stored head updated with a `304`'s fields (RFC 9111, section 4.3.4): each field the 304 carries replaces
    /// the stored ones of its name, but for the framing fields.
    mutating func update(with notModified: HTTPResponse, requestTime: Date, responseTime: Date) {
        var head = self.head
        let skipped: Set<HTTPField.Name> = [.contentLength, .contentEncoding, .transferEncoding, .contentRange]
        let names = Set(notModified.headerFields.map(\.name)).subtracting(skipped)
        for name in names {
            head.headerFields[values: name] = notModified.headerFields[values: name]
        }
        fields = head.headerFields.map { [$0.name.rawName, $0.value] }
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
