/// The lines of a byte stream, as an `AsyncSequence` of `String`s: each line without its line end (`\n` or
/// `\r\n`; a lone `\r` is kept), decoded as UTF-8 with replacement characters for invalid bytes. A last line
/// without a line end is included when it is not empty.
///
/// Lines are read lazily: a chunk is read from the base sequence only when the lines already read are
/// consumed, so a slow consumer slows the stream down instead of making it buffer.
///
/// ```swift
/// for try await line in body.lines() { print(line) }
/// ```
public struct LineSequence<Base: AsyncSequence>: AsyncSequence
where Base.Element == ArraySlice<UInt8>, Base.Failure == ParleyError {
    /// A line.
    public typealias Element = String
    /// Reading fails with ``ParleyError``.
    public typealias Failure = ParleyError

    let base: Base
    let maxLineLength: Int

    /// Iterates the lines.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: RawLines(base: base.makeAsyncIterator(), maxLineLength: maxLineLength))
    }

    /// Iterates the lines.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: RawLines<Base.AsyncIterator>

        /// The next line; `nil` at the end of the stream.
        ///
        /// - Throws: The base sequence's error, or ``ParleyError/Kind/bodyTooLarge`` for a line longer than
        ///   the sequence's `maxLineLength`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> String? {
            try await lines.next(isolation: actor).map { String(decoding: $0, as: UTF8.self) }
        }

        /// The next line; `nil` at the end of the stream.
        public mutating func next() async throws(ParleyError) -> String? {
            try await next(isolation: nil)
        }
    }
}

extension LineSequence: Sendable where Base: Sendable {}

/// The lines of a chunk iterator as byte slices, read lazily: the engine of ``LineSequence`` and
/// ``JSONLineSequence``.
struct RawLines<Base: AsyncIteratorProtocol> where Base.Element == ArraySlice<UInt8>, Base.Failure == ParleyError {
    var base: Base
    var splitter: LineSplitter
    var ended = false

    init(base: Base, maxLineLength: Int) {
        self.base = base
        self.splitter = LineSplitter(maxLineLength: maxLineLength)
    }

    /// The next line, reading a chunk from the base only when no complete line is left.
    mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> ArraySlice<UInt8>? {
        while !ended {
            if let line = try splitter.nextLine() { return line }
            guard let chunk = try await base.next(isolation: actor) else {
                ended = true
                return splitter.finish()
            }
            splitter.append(chunk)
        }
        return nil
    }
}

extension AsyncSequence where Element == ArraySlice<UInt8>, Failure == ParleyError {
    /// The lines of this byte stream, as `String`s without their line ends (`\n` or `\r\n`).
    ///
    /// - Parameter maxLineLength: The most bytes one line may hold; a longer line fails with
    ///   ``ParleyError/Kind/bodyTooLarge`` (so a stream without line ends cannot exhaust memory).
    public func lines(maxLineLength: Int = 1 << 20) -> LineSequence<Self> {
        LineSequence(base: self, maxLineLength: maxLineLength)
    }
}
