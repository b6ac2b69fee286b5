import AsyncHTTPClient
import HTTPTypes
import NIOCore

/// AsyncHTTPClient's response body as byte slices, its errors (a read timeout, a connection closed mid-body)
/// translated into ``/Parley/ParleyError``s like the errors before the head.
struct TranslatedBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    typealias Failure = any Error
    let base: HTTPClientResponse.Body
    let request: HTTPRequest
    /// The request body still being sent, if it streams: it ends when the response does.
    let bodyProgress: RequestBodyProgress?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let request: HTTPRequest
        let bodyProgress: RequestBodyProgress?

        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                guard let buffer = try await base.next() else {
                    // A server may answer before it has read the whole request body (nginx does): the call ends
                    // here, and so does the upload, instead of going on behind the caller's back.
                    bodyProgress?.responseEnded()
                    return nil
                }
                return ArraySlice(buffer.readableBytesView)
            } catch {
                throw AsyncHTTPClientTransport.translate(error, request: request, afterHead: true, bodyProgress: bodyProgress)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), request: request, bodyProgress: bodyProgress)
    }
}
