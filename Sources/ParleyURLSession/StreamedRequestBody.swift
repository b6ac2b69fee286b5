import OpenAPIRuntime
import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// A request body sent as `URLRequest.httpBodyStream` on Linux: a producer task iterates the `HTTPBody` into a
/// ``RequestBodyPipe`` and FoundationNetworking reads the pipe through ``RequestBodyInputStream``, so at most
/// the pipe's capacity is held in memory however large the body is.
final class StreamedRequestBody: Sendable {
    /// Bytes the producer may run ahead of curl: enough that curl's reads rarely wait, small enough to not matter.
    static let capacity = 1 << 20

    let pipe: RequestBodyPipe
    private let producer: Task<Void, Never>

    init(_ body: HTTPBody, length: Int64?) {
        let pipe = RequestBodyPipe(capacity: Self.capacity, expectedLength: length)
        self.pipe = pipe
        // Unstructured: feeds FoundationNetworking's body stream while the response arrives; `finish()` stops it.
        producer = Task {
            do {
                for try await chunk in body {
                    guard await pipe.write(chunk) else { return }
                }
                pipe.finish()
            } catch {
                pipe.fail(error)
            }
        }
    }

    /// The call was cancelled: the reader aborts the transfer (so that cancelling the task cannot wait on a
    /// blocked read) and the producer stops.
    func cancel() {
        pipe.fail(CancellationError())
        producer.cancel()
    }

    /// The transfer ended: stops the producer if it is still running.
    func finish() {
        pipe.close()
        producer.cancel()
    }

    /// The error to report instead of URLSession's "aborted by callback", when the body itself failed.
    func failure() -> ParleyError? {
        guard let error = pipe.failure else { return nil }
        if error is CancellationError {
            return ParleyError(.cancelled, "The request was cancelled while its body was being sent.", underlying: error)
        }
        if let error = error as? RequestBodyLengthError {
            return ParleyError(.transport, "The request body was not sent whole: \(error).", underlying: error)
        }
        return ParleyError.wrapping(error, as: .transport, "The request body failed while it was being sent: \(error).")
    }
}

#if canImport(FoundationNetworking)
    extension StreamedRequestBody {
        /// A fresh stream for `URLRequest.httpBodyStream` (FoundationNetworking opens it once).
        func makeInputStream() -> InputStream { RequestBodyInputStream(pipe: pipe) }
    }

    /// The `InputStream` FoundationNetworking reads a streamed body from. It calls `open()`, then
    /// `hasBytesAvailable` and `read(_:maxLength:)` for each chunk on the session's work queue; `false` or a read of
    /// 0 ends the body, -1 aborts the transfer.
    final class RequestBodyInputStream: InputStream {
        private let pipe: RequestBodyPipe
        private var status: Stream.Status = .notOpen

        init(pipe: RequestBodyPipe) {
            self.pipe = pipe
            super.init(data: Data())
        }

        override func open() { status = .open }
        override func close() { status = .closed }
        override var streamStatus: Stream.Status { status }
        override var streamError: (any Error)? { pipe.failure }
        /// Always `true` while open: the end of the body is told by a read of 0 bytes, after a wait if need be.
        override var hasBytesAvailable: Bool { status == .open }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
            let count = pipe.read(into: buffer, maxLength: len)
            if count == 0 { status = .atEnd }
            if count < 0 { status = .error }
            return count
        }

        override func getBuffer(
            _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
            length len: UnsafeMutablePointer<Int>
        ) -> Bool { false }
    }
#endif
