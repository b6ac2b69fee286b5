import OpenAPIRuntime
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A recorded response body played back in chunks of at most 64 KiB; one recorded incomplete fails past its end.
struct ReplayBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    /// The chunk size of replayed bodies.
    static let chunkSize = 64 * 1024

    let chunks: [HTTPBody.ByteChunk]
    /// Thrown once the chunks are used up, for a body recorded incomplete.
    let failure: ParleyError?

    /// The body of `recorded`, for the exchange `exchange`.
    static func make(_ recorded: Fixture.Body, of exchange: ReplayExchange, fixture: URL?) -> HTTPBody {
        let bytes = [UInt8](recorded.bytes)
        let chunks = stride(from: 0, to: bytes.count, by: chunkSize).map { bytes[$0..<Swift.min($0 + chunkSize, bytes.count)] }
        guard !recorded.isComplete else {
            return HTTPBody(
                ReplayBody(chunks: chunks, failure: nil),
                length: .known(Int64(bytes.count)),
                iterationBehavior: .multiple
            )
        }
        let message =
            "The fixture holds only the first \(bytes.count) bytes of the response body of exchange "
            + "\(exchange.summary): the recording stopped reading there, and this replay read on. Re-record with the "
            + "test reading the whole body (or reading no further than it does now)."
        let error = ReplayError(
            request: exchange.request.summary,
            candidates: [],
            unused: [],
            fixture: fixture,
            description: message
        )
        let failure = ParleyError(.transport, message, underlying: error)
        return HTTPBody(ReplayBody(chunks: chunks, failure: failure), length: .unknown, iterationBehavior: .multiple)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks, failure: failure)
    }

    struct Iterator: AsyncIteratorProtocol {
        let chunks: [HTTPBody.ByteChunk]
        let failure: ParleyError?
        var next = 0

        mutating func next() async throws -> Element? {
            guard next < chunks.count else {
                if let failure { throw failure }
                return nil
            }
            defer { next += 1 }
            return chunks[next]
        }
    }
}
