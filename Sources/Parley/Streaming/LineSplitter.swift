/// Splits a stream of byte chunks into lines ended by LF, dropping a CR just before the LF (so `\n` and
/// `\r\n` both end a line; a lone CR is data), without limit on how chunks are cut.
///
/// Hand it a chunk with ``append(_:)``, then take lines with ``nextLine()`` until it returns `nil`; hand it
/// the next chunk. A line that lies within one chunk is returned as a slice of that chunk (no copy); only
/// a line spread over several chunks is gathered. Every byte is looked at once.
package struct LineSplitter: Sendable {
    /// The most bytes a line may hold, not counting its line end.
    package let maxLineLength: Int
    /// The part of the current line that came in earlier chunks.
    private var carry: [UInt8] = []
    /// The part of the last appended chunk not yet split.
    private var chunk: ArraySlice<UInt8> = []

    /// A splitter failing lines longer than `maxLineLength` bytes.
    package init(maxLineLength: Int) {
        self.maxLineLength = max(maxLineLength, 1)
    }

    /// Hands over the next chunk. Take every line of the previous one with ``nextLine()`` first.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        if chunk.isEmpty {
            chunk = bytes
        } else {
            chunk.append(contentsOf: bytes)  // only when the previous chunk was not split to its end
        }
    }

    /// The next complete line of the chunks handed over, without its line end; `nil` when the rest is an
    /// unfinished line (kept for the next chunk).
    ///
    /// - Throws: ``ParleyError/Kind/bodyTooLarge`` when a line, finished or not, grows past
    ///   ``maxLineLength``.
    package mutating func nextLine() throws(ParleyError) -> ArraySlice<UInt8>? {
        guard let end = chunk.firstIndex(of: .lineFeed) else {
            let pending = carry.count + chunk.count
            let endsInCR = (chunk.last ?? carry.last) == .carriageReturn
            if pending > maxLineLength + (endsInCR ? 1 : 0) { throw tooLong() }
            carry.append(contentsOf: chunk)
            chunk = []
            return nil
        }
        var line: ArraySlice<UInt8>
        if carry.isEmpty {
            line = chunk[..<end]
        } else {
            carry.append(contentsOf: chunk[..<end])
            line = carry[...]
            carry = []
        }
        chunk = chunk[(end + 1)...]
        if line.last == .carriageReturn { line = line.dropLast() }
        guard line.count <= maxLineLength else { throw tooLong() }
        return line
    }

    /// Ends the stream: returns the last line if it was not ended by a line end (and is not empty), and
    /// empties the splitter.
    package mutating func finish() -> ArraySlice<UInt8>? {
        var rest = carry[...]
        rest.append(contentsOf: chunk)
        carry = []
        chunk = []
        return rest.isEmpty ? nil : rest
    }

    private func tooLong() -> ParleyError {
        ParleyError(
            .bodyTooLarge,
            "A line of the response body is longer than the limit of \(maxLineLength) bytes. Raise maxLineLength "
                + "if the lines are legitimately this long, or read the body as byte chunks instead of lines."
        )
    }
}
