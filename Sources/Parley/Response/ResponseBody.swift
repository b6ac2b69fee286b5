public import HTTPTypes
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A response handed to a ``ResponseDecoder``: the head, the body (streamed or already buffered) and the
/// client's decoding settings.
public struct ResponseBody: Sendable {
    /// The body as a transport hands it up (``PipelineTransport``): streamed, or read whole where it arrived.
    package enum Storage: Sendable {
        case buffered(Data)
        case streaming(HTTPBody?)
        /// A body read whole whose reading failed after the head (it grew past ``ResponseBody/maxBytes``, came too
        /// slowly, or its connection broke): its first bytes (at most ``ParleyError/excerptLimit``), for an error's
        /// excerpt, and the error reading it fails with, as reading a streamed one would.
        case failed(excerpt: Data, error: ParleyError)

        /// The body as a stream: a body whose reading failed yields its excerpt, then fails.
        var body: HTTPBody? {
            switch self {
            case .buffered(let data): data.isEmpty ? nil : HTTPBody(data)
            case .streaming(let body): body
            case .failed(let excerpt, let error):
                HTTPBody(FailingBody(excerpt: excerpt, error: error), length: .unknown, iterationBehavior: .single)
            }
        }
    }

    /// The response head: status and header fields.
    public let head: HTTPResponse
    /// The client's JSON decoder.
    public let jsonDecoder: JSONDecoder
    /// The most bytes ``data()`` collects before failing with ``ParleyError/Kind/bodyTooLarge``.
    public let maxBytes: Int
    let storage: Storage

    init(head: HTTPResponse, storage: Storage, jsonDecoder: JSONDecoder, maxBytes: Int) {
        self.head = head
        self.storage = storage
        self.jsonDecoder = jsonDecoder
        self.maxBytes = maxBytes
    }

    /// A response for testing your own decoders.
    public init(head: HTTPResponse, data: Data, jsonDecoder: JSONDecoder = JSONDecoder(), maxBytes: Int = .max) {
        self.init(head: head, storage: .buffered(data), jsonDecoder: jsonDecoder, maxBytes: maxBytes)
    }

    /// The whole body. Fails with ``ParleyError/Kind/bodyTooLarge`` when it exceeds ``maxBytes``
    /// (checked against `Content-Length` first, then while reading, so an oversized body is never held).
    /// A streamed body can be read once: read it with one of ``data()``, ``stream()`` or ``discard()``.
    public func data() async throws(ParleyError) -> Data {
        switch storage {
        case .buffered(let data):
            return data
        case .streaming(let body):
            return try await Self.collect(body, head: head, maxBytes: maxBytes)
        case .failed(_, let error):
            throw error
        }
    }

    /// The body as a stream of byte chunks (`nil` when the response has no body).
    public func stream() -> HTTPBody? { storage.body }

    /// Reads and drops the body without holding it, so the connection can be reused.
    public func discard() async throws(ParleyError) {
        guard case .streaming(let body?) = storage else { return }
        do {
            for try await _ in body {}
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The response body could not be read to its end.")
        }
    }

    /// `body` read whole, failing with ``ParleyError/Kind/bodyTooLarge`` past `maxBytes` (``WholeResponseLimits/read(_:head:)``).
    static func collect(_ body: HTTPBody?, head: HTTPResponse, maxBytes: Int) async throws(ParleyError) -> Data {
        let storage: Storage
        do {
            storage = try await WholeResponseLimits(body: nil, maxBytes: maxBytes, acceptable: .any).read(body, head: head)
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The response body could not be read to its end.")
        }
        switch storage {
        case .buffered(let data): return data
        case .failed(_, let error): throw error
        case .streaming: return Data()  // not returned by `read`
        }
    }

    package static func tooLarge(_ maxBytes: Int, declared: Int64?) -> ParleyError {
        let declaredText = declared.map { "declares \($0) bytes (Content-Length)" } ?? "grew past the limit while reading"
        return ParleyError(
            .bodyTooLarge,
            "The response body \(declaredText); the limit for buffered bodies is \(maxBytes) bytes. "
                + "Raise Client.Configuration.maxResponseBodySize, or stream the body instead of buffering it."
        )
    }
}

/// A body Parley stopped reading (``ResponseBody/Storage/failed(excerpt:error:)``): its excerpt, then `error`.
struct FailingBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let excerpt: Data
    let error: ParleyError

    struct AsyncIterator: AsyncIteratorProtocol {
        var excerpt: Data?
        let error: ParleyError
        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let bytes = excerpt.take(), !bytes.isEmpty else { throw error }
            return ArraySlice(bytes)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(excerpt: excerpt, error: error) }
}
