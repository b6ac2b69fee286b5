/// Turns an HTTP response into a typed value: Parley's response adapter.
///
/// One method. Read the body with ``ResponseBody/data()`` (buffered, under the client's size limit) or
/// stream it with ``ResponseBody/stream()``; throw any error to fail the call (it becomes a
/// ``ParleyError`` of kind ``ParleyError/Kind/decoding``, with the coding path for a `DecodingError`).
///
/// ```swift
/// struct CSVDecoder: ResponseDecoder {
///     func decode(_ response: ResponseBody) async throws -> [[String]] {
///         let text = String(decoding: try await response.data(), as: UTF8.self)
///         return text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
///     }
/// }
/// ```
public protocol ResponseDecoder<Value>: Sendable {
    /// The decoded value.
    associatedtype Value: Sendable
    /// Decodes the response.
    func decode(_ response: ResponseBody) async throws -> Value
}

/// A decoder that reads the whole body before it decodes (``ResponseBody/data()``): the client's transport may then read
/// it whole where its bytes arrive (``WholeResponseTransport``) instead of streaming it to the decoder. Parley's own
/// buffering decoders are; a decoder of yours is streamed to, as it may want (it may read the body whole too).
package protocol WholeBodyDecoder: ResponseDecoder {
    /// Whether this decoder reads the whole body (`DefaultResponseDecoder<Void>` drops it unread).
    var readsWholeBody: Bool { get }
}
