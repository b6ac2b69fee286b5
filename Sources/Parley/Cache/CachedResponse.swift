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

    /// The response head. An entry that is not ``isValid`` (a store's file changed behind its back) is never used:
    /// ``HTTPCache`` drops it first; its status here is then 500 rather than a trap.
    var head: HTTPResponse {
        let code = Self.statuses.contains(status) ? status : 500
        var response = HTTPResponse(status: HTTPResponse.Status(code: code, reasonPhrase: reasonPhrase))
        for pair in fields where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { response.headerFields.append(HTTPField(name: name, value: pair[1])) }
        }
        return response
    }

    /// The status codes an entry may have.
    static let statuses = 100...999
    /// The times an entry may carry: years 1 to 9999, as `Date` counts them from 2001 (no infinity, no overflow in
    /// the age's arithmetic).
    static let times = -63_113_904_000.0...252_423_993_600.0

    /// Whether every stored part is one a response could have had: a status in 100...999, a reason phrase and field
    /// values without control characters but tab, field names that are tokens, name and value pairs, lower-case
    /// varied names, and times within years 1 to 9999. What a store reads back is input like a server's bytes: an
    /// entry that is not valid is a miss, and the cache removes it.
    public var isValid: Bool {
        func isText(_ text: String) -> Bool {
            text.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }
        }
        guard Self.statuses.contains(status), isText(reasonPhrase),
            Self.times.contains(requestTime.timeIntervalSinceReferenceDate),
            Self.times.contains(responseTime.timeIntervalSinceReferenceDate)
        else { return false }
        let fieldsValid = fields.allSatisfy { pair in
            pair.count == 2 && HTTPField.Name(pair[0]) != nil && isText(pair[1])
        }
        let variedValid = varied.allSatisfy { name, value in
            HTTPField.Name(name) != nil && name == name.lowercased() && value.map(isText) != false
        }
        return fieldsValid && variedValid
    }

    /// Decodes an entry, and refuses one that is not ``isValid`` (`DecodingError.dataCorrupted`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        reasonPhrase = try container.decode(String.self, forKey: .reasonPhrase)
        fields = try container.decode([[String]].self, forKey: .fields)
        body = try container.decode(Data.self, forKey: .body)
        requestTime = try container.decode(Date.self, forKey: .requestTime)
        responseTime = try container.decode(Date.self, forKey: .responseTime)
        varied = try container.decode([String: String?].self, forKey: .varied)
        guard isValid else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "A stored response with a status, field, varied value or time no response has."
                )
            )
        }
    }

    init(_ response: HTTPResponse, body: Data, requestTime: Date, responseTime: Date, varied: [String: String?]) {
        status = response.status.code
        reasonPhrase = response.status.reasonPhrase
        // Set-Cookie is not kept: the jar took it when the response arrived, and an answer from the cache must not
        // set it again (a cookie deleted since would come back), nor a store keep a session on disk.
        fields = response.headerFields.filter { $0.name != .setCookie }.map { [$0.name.rawName, $0.value] }
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varied = varied
    }

    /// The stored head updated with a `304`'s fields (RFC 9111, section 4.3.4): each field the 304 carries replaces
    /// the stored ones of its name, but for the framing fields.
    mutating func update(with notModified: HTTPResponse, requestTime: Date, responseTime: Date) {
        var head = self.head
        // Set-Cookie neither: a cookie is the jar's, applied once when it arrives, never replayed from the cache.
        let skipped: Set<HTTPField.Name> = [
            .contentLength, .contentEncoding, .transferEncoding, .contentRange, .setCookie,
        ]
        let names = Set(notModified.headerFields.map(\.name)).subtracting(skipped)
        for name in names {
            head.headerFields[values: name] = notModified.headerFields[values: name]
        }
        fields = head.headerFields.map { [$0.name.rawName, $0.value] }
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
