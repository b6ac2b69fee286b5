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

    /// Whether this decoder always reads the whole body (``ResponseBody/data()``) before it decodes. The client's
    /// transport may then read the body whole where its bytes arrive, within the client's limits, and hand it over at
    /// once instead of as a stream (the default, `false`, streams it). Parley's buffering decoders say `true`.
    static var readsWholeBody: Bool { get }
}

extension ResponseDecoder {
    /// `false`: a decoder of yours is handed the body as it arrives (``ResponseBody/stream()``), as it may want.
    public static var readsWholeBody: Bool { false }
}
