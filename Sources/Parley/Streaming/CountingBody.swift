import OpenAPIRuntime

/// A request body that reports how many of its bytes the transport has taken.
struct CountingBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let base: HTTPBody
    let reporter: ProgressReporter

    /// `body` wrapped so that every chunk the transport pulls is reported; length and replayability are kept.
    static func wrap(_ body: HTTPBody, reporter: ProgressReporter) -> HTTPBody {
        let total: Int64? = if case .known(let count) = body.length { count } else { nil }
        reporter.report(TransferProgress(completedBytes: 0, totalBytes: total))
        return HTTPBody(
            CountingBody(base: body, reporter: reporter),
            length: body.length,
            iterationBehavior: body.iterationBehavior
        )
    }

    func makeAsyncIterator() -> Iterator {
        let total: Int64? = if case .known(let count) = base.length { count } else { nil }
        return Iterator(base: base.makeAsyncIterator(), reporter: reporter, total: total)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let reporter: ProgressReporter
        let total: Int64?
        var sent: Int64 = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            // Once the transfer is over (the server answered before it had the whole body), the body ends with
            // it: the file is not read any further, and the transport stops sending.
            guard !reporter.isFinished else {
                throw ParleyError(.cancelled, "The transfer has ended; the rest of its request body is not sent.")
            }
            guard let chunk = try await base.next() else { return nil }
            sent += Int64(chunk.count)
            reporter.report(TransferProgress(completedBytes: sent, totalBytes: total))
            return chunk
        }
    }
}
