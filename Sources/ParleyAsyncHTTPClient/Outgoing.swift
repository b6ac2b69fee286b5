import AsyncHTTPClient
import HTTPTypes
import NIOCore
import NIOHTTP1
import OpenAPIRuntime
import Parley

/// A request's body as AsyncHTTPClient is handed it: none, bytes that go out with the head, or a stream.
enum Payload: Sendable {
    case none
    /// A body of known length up to ``AsyncHTTPClientTransport/wholeRequestBodyLimit``, read into one buffer: no task
    /// pulling an async sequence chunk by chunk, no extra hops between the event loop and the caller's executor.
    case bytes(ByteBuffer)
    /// A longer body, or one of unknown length, streamed as AsyncHTTPClient asks for it.
    case stream(HTTPBody)

    /// `body` as AsyncHTTPClient is to be handed it.
    static func of(_ body: HTTPBody?) async throws(ParleyError) -> Payload {
        guard let body else { return .none }
        switch body.length {
        case .known(0):
            return .bytes(ByteBuffer())
        case .known(let count) where count <= AsyncHTTPClientTransport.wholeRequestBodyLimit:
            var buffer = ByteBuffer()
            buffer.reserveCapacity(Int(count))
            do {
                for try await chunk in body { buffer.writeBytes(chunk) }
            } catch {
                throw ParleyError.wrapping(error, as: .transport, "The request body could not be read: \(error)")
            }
            return .bytes(buffer)
        case .known, .unknown:
            return .stream(body)
        }
    }

    /// Whether the body can be sent once more from its start.
    var canBeSentAgain: Bool {
        guard case .stream(let body) = self else { return true }
        return body.iterationBehavior == .multiple
    }
}

/// The one request builder of ``AsyncHTTPClientTransport``: a Parley request as AsyncHTTPClient's, of either kind it
/// runs (its streaming `HTTPClientRequest`, or an `HTTPClient.Request` for a delegate that reads the response whole),
/// built from the same URL, method, header lines and body.
struct Outgoing: Sendable {
    let url: String
    let method: HTTPMethod
    let headers: HTTPHeaders
    let payload: Payload

    /// `request` for `url`, with `host` as its `Host` line when `url` is not the server's (a pinned relay's socket).
    init(_ request: HTTPRequest, url: String, host: String?, payload: Payload) {
        self.url = url
        self.method = HTTPMethod(rawValue: request.method.rawValue)
        self.headers = AsyncHTTPClientTransport.headers(of: request, host: host)
        self.payload = payload
    }

    /// The request for AsyncHTTPClient's streaming API, and what tracks its body when it streams.
    func streaming(on eventLoops: any EventLoopGroup) -> (HTTPClientRequest, RequestBodyProgress?) {
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = method
        outgoing.headers = headers
        switch payload {
        case .none:
            return (outgoing, nil)
        case .bytes(let bytes):
            outgoing.body = .bytes(bytes)
            return (outgoing, nil)
        case .stream(let body):
            let progress = RequestBodyProgress()
            let stream = RequestBodyStream(base: body, progress: progress, eventLoops: eventLoops)
            if case .known(let count) = body.length {
                outgoing.body = .stream(stream, length: .known(count))
            } else {
                outgoing.body = .stream(stream, length: .unknown)
            }
            return (outgoing, progress)
        }
    }

    /// The request for a delegate (``WholeResponseReader``); only for a body that goes out with the head.
    func delegated() throws -> HTTPClient.Request {
        let body: HTTPClient.Body?
        switch payload {
        case .none: body = nil
        case .bytes(let bytes): body = .byteBuffer(bytes)
        case .stream:
            // Not reached: a streamed body is sent by the streaming API (AsyncHTTPClientTransport's PipelineTransport
            // send); refused rather than sent without it.
            throw ParleyError(.invalidRequest, "A streamed request body cannot be sent by the whole-response reader.")
        }
        return try HTTPClient.Request(url: url, method: method, headers: headers, body: body)
    }
}

extension AsyncHTTPClientTransport {
    /// Sends `outgoing` and reads its response whole on the connection's event loop (``WholeResponseReader``): one hop
    /// back to the caller with the head and the body, instead of one per part.
    ///
    /// The reader is started from an event loop of the client: AsyncHTTPClient then prefers a connection of that loop
    /// and calls the reader there, not on another loop it must wake, and the loop resumes the call without waking a
    /// thread of the cooperative pool. Only this step runs there, AsyncHTTPClient's own work and the reader's
    /// (Parley's bounded stages: the Architecture article's rule); the caller's code resumes on its own executor.
    func readWhole(
        _ outgoing: Outgoing,
        request: HTTPRequest,
        limits: WholeResponseLimits,
        head: (limit: Duration, deadline: NIODeadline)?
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        let answer: WholeResponseReader.Response
        do {
            let delegated = try outgoing.delegated()
            answer = try await Self.resendingOnStaleConnection(before: head?.deadline ?? .distantFuture) {
                try await withTaskExecutorPreference(loopExecutors.next()) {
                    try await WholeResponseReader.read(delegated, on: client, limits: limits, head: head)
                }
            }
        } catch let failure as WholeResponseReader.Failure {
            throw Self.translate(failure.underlying, request: request)
        } catch {
            throw Self.translate(error, request: request)
        }
        let response = Self.response(status: answer.head.status, headers: answer.head.headers)
        guard let failure = answer.failure, case .buffered(let excerpt) = answer.body else { return (response, answer.body) }
        return (response, .failed(excerpt: excerpt, error: Self.translate(failure, request: request, afterHead: true)))
    }
}
