import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Helpers that build the demo server's JSON and text responses.
enum DemoResponses {
    /// Content type of every JSON body.
    static let jsonContentType = "application/json; charset=utf-8"
    /// Content type of every text body.
    static let textContentType = "text/plain; charset=utf-8"

    /// A JSON response encoding `value`.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return self.raw(ByteBuffer(bytes: data), contentType: self.jsonContentType, status: status)
    }

    /// A JSON error response: `{"error": message}`.
    static func error(_ message: String, status: HTTPResponse.Status) -> Response {
        let body = "{\"error\":\(self.jsonString(message))}"
        return self.raw(ByteBuffer(string: body), contentType: self.jsonContentType, status: status)
    }

    /// A text response.
    static func text(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        self.raw(ByteBuffer(string: text), contentType: self.textContentType, status: status)
    }

    /// A response with a fixed body and content type.
    static func raw(_ body: ByteBuffer, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: body))
    }

    /// Encodes `string` as a JSON string literal (with quotes).
    static func jsonString(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
