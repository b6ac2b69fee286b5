import OpenAPIRuntime

/// Reports how many of a request body's bytes the transport has taken (a ``BodyWatcher``).
struct CountingBody: BodyWatcher {
    struct Reading {
        let total: Int64?
        var sent: Int64 = 0
    }

    let reporter: ProgressReporter

    /// `body` watched so that every chunk the transport pulls is reported; length and replayability are kept.
    static func wrap(_ body: HTTPBody, reporter: ProgressReporter) -> HTTPBody {
        reporter.report(TransferProgress(completedBytes: 0, totalBytes: body.knownLength))
        return body.watched(by: CountingBody(reporter: reporter))
    }

    func startReading(of body: HTTPBody) -> Reading { Reading(total: body.knownLength) }

    func willRead(_ reading: inout Reading) throws {
        // Once the transfer is over (the server answered before it had the whole body), the body ends with it: the
        // file is not read any further, and the transport stops sending.
        guard !reporter.isFinished else {
            throw ParleyError(.cancelled, "The transfer has ended; the rest of its request body is not sent.")
        }
    }

    func didRead(_ chunk: ArraySlice<UInt8>, _ reading: inout Reading) {
        reading.sent += Int64(chunk.count)
        reporter.report(TransferProgress(completedBytes: reading.sent, totalBytes: reading.total))
    }
}
