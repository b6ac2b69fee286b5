#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A newline-delimited JSON stream (NDJSON, JSON Lines) as an `AsyncSequence` of decoded values: each
/// line is one JSON document decoded as `Value`. Empty lines and lines of only whitespace are skipped.
///
/// Lines are read lazily: a chunk is read from the base sequence only when the values already read are
/// consumed, so a slow consumer slows the stream down instead of making it buffer.
///
/// ```swift
/// for try await event in body.jsonLines(of: LogEvent.self) { print(event.message) }
/// ```
public struct JSONLineSequence<Base: AsyncSequence, Value: Decodable & Sendable>: AsyncSequence
where Base.Element == ArraySlice<UInt8>, Base.Failure == ParleyError {
    /// A decoded line.
    public typealias Element = Value
    /// Reading or decoding fails with ``ParleyError``.
    public typealias Failure = ParleyError

    let base: Base
    let decoder: JSONDecoder
    let maxLineLength: Int

    /// Iterates the values.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: RawLines(base: base.makeAsyncIterator(), maxLineLength: maxLineLength), decoder: decoder)
    }

    /// Iterates the values.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: RawLines<Base.AsyncIterator>
        let decoder: JSONDecoder
        var lineNumber = 0

        /// The value of the next line that is not blank; `nil` at the end of the stream.
        ///
        /// - Throws: ``ParleyError/Kind/decoding`` naming the line number and coding path when a line does
        ///   not decode as `Value` (``ParleyError/body`` holds the line); the base sequence's error; or
        ///   ``ParleyError/Kind/bodyTooLarge`` for a line longer than the sequence's `maxLineLength`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> Value? {
            while let line = try await lines.next(isolation: actor) {
                lineNumber += 1
                guard line.contains(where: { !Self.isWhitespace($0) }) else { continue }
                let data = Data(line)
                do {
                    return try decoder.decode(Value.self, from: data)
                } catch {
                    throw failure(error, line: data)
                }
            }
            return nil
        }

        /// The value of the next line that is not blank; `nil` at the end of the stream.
        public mutating func next() async throws(ParleyError) -> Value? {
            try await next(isolation: nil)
        }

        private func failure(_ cause: any Error, line: Data) -> ParleyError {
            let prefix = "Line \(lineNumber) of the newline-delimited JSON stream could not be decoded as \(Value.self)"
            var failure: ParleyError
            if let decodingError = cause as? DecodingError {
                let (path, message) = decodingError.explanation(body: line)
                failure = ParleyError(.decoding, "\(prefix): \(message).", underlying: cause)
                failure.codingPath = path
            } else {
                failure = ParleyError(.decoding, "\(prefix): \(cause).", underlying: cause)
            }
            return failure.attaching(response: nil, body: Data(line.prefix(ParleyError.excerptLimit)))
        }

        /// JSON's whitespace: space, tab, line feed, carriage return.
        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == .space || byte == 0x09 || byte == .lineFeed || byte == .carriageReturn
        }
    }
}

extension JSONLineSequence: Sendable where Base: Sendable {}

extension AsyncSequence where Element == ArraySlice<UInt8>, Failure == ParleyError {
    /// The values of this newline-delimited JSON stream (NDJSON, JSON Lines): each line that is not blank
    /// decoded as `Value`.
    ///
    /// - Parameters:
    ///   - type: The type of each line's value.
    ///   - decoder: The decoder for each line.
    ///   - maxLineLength: The most bytes one line may hold; a longer line fails with
    ///     ``ParleyError/Kind/bodyTooLarge``.
    public func jsonLines<Value: Decodable & Sendable>(
        of type: Value.Type = Value.self,
        decoder: JSONDecoder = JSONDecoder(),
        maxLineLength: Int = 8 << 20
    ) -> JSONLineSequence<Self, Value> {
        JSONLineSequence(base: self, decoder: decoder, maxLineLength: maxLineLength)
    }
}
