public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A JSON-RPC error object: what a peer answers instead of a result.
///
/// A call that gets one fails with ``/Parley/ParleyError`` of kind ``Parley/ParleyError/Kind/jsonRPCError`` whose
/// ``Parley/ParleyError/jsonRPCError`` is this value. A ``JSONRPCRouter`` handler throws one to answer with it.
public struct JSONRPCError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The error code: one of ``Code`` or an application's own.
    public var code: Int
    /// A short description of the error. One decoded from a peer longer than ``/Parley/ParleyError/excerptLimit``
    /// bytes is kept as its first characters and a note of its full size, within that limit.
    public var message: String
    /// Additional information, if the peer sent any.
    public var data: JSONValue?

    /// An error object.
    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The codes the specification defines.
    public enum Code {
        /// Invalid JSON was received.
        public static let parseError = -32700
        /// The JSON sent is not a valid request object.
        public static let invalidRequest = -32600
        /// The method does not exist or is not available.
        public static let methodNotFound = -32601
        /// Invalid method parameters.
        public static let invalidParams = -32602
        /// Internal JSON-RPC error.
        public static let internalError = -32603
        /// Reserved for implementation-defined server errors.
        public static let serverErrors: ClosedRange<Int> = -32099...(-32000)
    }

    /// `Parse error` (-32700).
    public static func parseError(data: JSONValue? = nil) -> JSONRPCError {
        JSONRPCError(code: Code.parseError, message: "Parse error", data: data)
    }
    /// `Invalid Request` (-32600).
    public static func invalidRequest(data: JSONValue? = nil) -> JSONRPCError {
        JSONRPCError(code: Code.invalidRequest, message: "Invalid Request", data: data)
    }
    /// `Method not found` (-32601).
    public static func methodNotFound(data: JSONValue? = nil) -> JSONRPCError {
        JSONRPCError(code: Code.methodNotFound, message: "Method not found", data: data)
    }
    /// `Invalid params` (-32602).
    public static func invalidParams(data: JSONValue? = nil) -> JSONRPCError {
        JSONRPCError(code: Code.invalidParams, message: "Invalid params", data: data)
    }
    /// `Internal error` (-32603).
    public static func internalError(data: JSONValue? = nil) -> JSONRPCError {
        JSONRPCError(code: Code.internalError, message: "Internal error", data: data)
    }

    /// Whether the code is in the reserved server-error range -32099…-32000.
    public var isServerError: Bool { Code.serverErrors.contains(code) }

    /// The specification's name for the code, if it has one.
    public var standardName: String? {
        switch code {
        case Code.parseError: "parse error"
        case Code.invalidRequest: "invalid request"
        case Code.methodNotFound: "method not found"
        case Code.invalidParams: "invalid params"
        case Code.internalError: "internal error"
        case Code.serverErrors: "server error"
        default: nil
        }
    }

    /// Decodes ``data`` into a type of your choice; `nil` when there is none.
    /// - Throws: ``/Parley/ParleyError`` of kind ``/Parley/ParleyError/Kind/decoding`` naming the coding path.
    public func data<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(ParleyError) -> T? {
        guard let data else { return nil }
        do {
            return try decoder.decode(T.self, from: JSONEncoder().encode(data))
        } catch {
            var failure = ParleyError(
                .decoding,
                "The data of JSON-RPC error \(code) could not be decoded as \(T.self): \(error).",
                underlying: error
            )
            if let decoding = error as? DecodingError { failure.codingPath = decoding.explanation.path }
            throw failure
        }
    }

    /// `-32601 "Method not found"`, with the data if any; characters that are not printable (controls, bidi
    /// overrides) are escaped, so a peer cannot forge log lines through its message. The message and the data are
    /// each kept to an excerpt (``/Parley/ParleyError/excerptLimit`` bytes), so that an error object of megabytes
    /// makes an error message of a few kilobytes.
    public var description: String {
        var text = "\(code) \(String(reflecting: ParleyError.excerpt(message)))"
        if let name = standardName { text += " (\(name))" }
        if let data { text += " data: " + ParleyError.excerpt(data.description) }
        return PrintableText.escaping(text)
    }

    enum CodingKeys: String, CodingKey {
        case code, message, data
    }

    /// Decodes strictly: `code` must be an integer and `message` a string. A message longer than
    /// ``/Parley/ParleyError/excerptLimit`` bytes is kept as its first characters and a note of its full size
    /// (an error object is a peer's, and every ``/Parley/ParleyError`` keeps what a peer sent to an excerpt).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Int.self, forKey: .code)
        message = ParleyError.excerpt(try container.decode(String.self, forKey: .message))
        data = try container.decodeIfPresent(JSONValue.self, forKey: .data)
    }

    /// Encodes `code`, `message` and `data` when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(data, forKey: .data)
    }
}

extension ParleyError {
    /// The peer's JSON-RPC error object, when this error is of kind ``Parley/ParleyError/Kind/jsonRPCError``.
    public var jsonRPCError: JSONRPCError? { underlying as? JSONRPCError }
}
