public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The body of a request. A struct that hides how the bytes are produced; it knows its content type.
///
/// - ``none``: no body.
/// - ``json(_:encoder:)``: any `Encodable` value, encoded with the given or the client's `JSONEncoder`.
/// - ``form(_:)``: `application/x-www-form-urlencoded` fields.
/// - ``bytes(_:contentType:)``: raw bytes with a content type.
/// - ``stream(_:contentType:)``: an `HTTPBody` you built (streamed; its length and replayability are kept).
/// - ``file(_:contentType:)``: a file streamed from disk, a chunk at a time (replayable, with its length).
/// - ``multipart(_:)``: a ``MultipartForm`` (`multipart/form-data`), files streamed.
public struct RequestBody: Sendable {
    enum Storage: Sendable {
        case none
        case encoded(contentType: String, encode: @Sendable (JSONEncoder) throws -> Data)
        case bytes(Data, contentType: String)
        case stream(HTTPBody, contentType: String?)
        case file(URL, contentType: String)
        case multipart(MultipartForm)
    }

    let storage: Storage

    /// No body.
    public static let none = RequestBody(storage: .none)

    /// A JSON body (`application/json`). `encoder` overrides the client's `JSONEncoder` for this body.
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(
            storage: .encoded(contentType: "application/json") { clientEncoder in
                try (encoder ?? clientEncoder).encode(value)
            }
        )
    }

    /// An `application/x-www-form-urlencoded` body (spaces as `+`, everything but unreserved characters encoded).
    public static func form(_ fields: Query) -> RequestBody {
        var encoded = ""
        fields.appendEncoded(to: &encoded, spaceAsPlus: true)
        return RequestBody(storage: .bytes(Data(encoded.utf8), contentType: "application/x-www-form-urlencoded"))
    }

    /// Raw bytes sent as they are, with the given content type.
    public static func bytes(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(storage: .bytes(data, contentType: contentType))
    }

    /// UTF-8 text (`text/plain; charset=utf-8` unless you name another type).
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(storage: .bytes(Data(text.utf8), contentType: contentType))
    }

    /// A body you built as an `HTTPBody`; streamed as it is.
    public static func stream(_ body: HTTPBody, contentType: String? = nil) -> RequestBody {
        RequestBody(storage: .stream(body, contentType: contentType))
    }

    /// A file streamed from disk (never read whole into memory), sent with its size as `Content-Length`.
    ///
    /// The file is opened when the request is made: a missing or unreadable file fails the call with
    /// ``ParleyError/Kind/invalidRequest`` before anything is sent. It is reopened if the body is sent again (by a
    /// retry), and a file whose size changes while it is sent fails the call instead of sending a mixed body.
    public static func file(_ url: URL, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(storage: .file(url, contentType: contentType))
    }

    /// A `multipart/form-data` body.
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        RequestBody(storage: .multipart(form))
    }

    /// Whether there is no body.
    public var isEmpty: Bool {
        if case .none = storage { return true }
        return false
    }

    /// Produces the wire body and its content type.
    func make(encoder: JSONEncoder) throws -> (body: HTTPBody, contentType: String?)? {
        switch storage {
        case .none:
            return nil
        case .encoded(let contentType, let encode):
            let data = try encode(encoder)
            return (HTTPBody(data), contentType)
        case .bytes(let data, let contentType):
            return (HTTPBody(data), contentType)
        case .stream(let body, let contentType):
            return (body, contentType)
        case .file(let url, let contentType):
            let chunks = try FileChunks(path: try MultipartForm.path(of: url))
            return (HTTPBody(chunks, length: .known(chunks.size), iterationBehavior: .multiple), contentType)
        case .multipart(let form):
            let made = try form.makeBody()
            return (made.body, made.contentType)
        }
    }
}
