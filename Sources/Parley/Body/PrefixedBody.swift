import OpenAPIRuntime

/// A body of which some bytes were already read: those, then the rest of its iterator. For a middleware that looked
/// into a body (to share or store it) and hands it on after all.
struct PrefixedBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let prefix: [UInt8]
    /// Handed to the one reader of this body, which HTTPBody lets iterate once (`.single`).
    nonisolated(unsafe) let rest: HTTPBody.AsyncIterator  // SAFE: one iteration, by one reader

    /// The body: `prefix`, then what `rest` yields; iterable once.
    static func body(prefix: [UInt8], rest: HTTPBody.AsyncIterator, length: HTTPBody.Length) -> HTTPBody {
        HTTPBody(PrefixedBody(prefix: prefix, rest: rest), length: length, iterationBehavior: .single)
    }

    func makeAsyncIterator() -> Iterator { Iterator(prefix: prefix, rest: rest) }

    struct Iterator: AsyncIteratorProtocol {
        var prefix: [UInt8]?
        var rest: HTTPBody.AsyncIterator

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let first = prefix {
                prefix = nil
                return ArraySlice(first)
            }
            return try await rest.next()
        }
    }
}
