import AsyncHTTPClient
import HTTPTypes
import NIOCore
import NIOHTTP1
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads one response whole on its event loop, for ``AsyncHTTPClientTransport``'s buffered calls
/// (``/Parley/CallScope/whole``): the body is gathered where it arrives and handed to the caller once, with its head,
/// instead of crossing from the event loop to the caller chunk by chunk.
///
/// It bounds what it reads where the bytes arrive:
/// - the head must arrive by the deadline the head limit set when the request was handed to the transport
///   (``/Parley/HeadDeadline``'s one clock: a timer on the loop, armed as the request starts);
/// - the body must arrive in full within ``WholeResponseLimits/body`` of its head (the clock read as each part arrives,
///   as ``BodyDeadline`` does; a server that stops sending is caught by the read timeout);
/// - past ``WholeResponseLimits/maxBytes`` (or with a `Content-Length` above it) reading stops and the connection is
///   closed (``/Parley/WholeResponseLimits/tooLarge(excerpt:declared:)``): at once under an acceptable status, after the first
///   ``/Parley/ParleyError/excerptLimit`` bytes (the error's excerpt) under any other.
// swift-format-ignore
final class WholeResponseReader: HTTPClientResponseDelegate, NIOScheduledCallbackHandler, @unchecked Sendable {  // SAFE: AsyncHTTPClient calls every delegate method on the task's event loop (RequestBag), and NIO runs the timer's handler on the loop it was scheduled on, the same one: the mutable state is touched on that one thread while the request runs; `read` reads it only after the task's future completed there, the continuation it resumed ordering those writes first.
    /// The head and the body (a struct, not a tuple: a tuple's metadata is looked up at run time on every call).
    struct Response: Sendable {
        let head: HTTPResponseHead
        let body: ResponseBody.Storage
        /// AsyncHTTPClient's failure after the head: `body` then holds the first bytes that came, and the call's body
        /// fails with this error once translated.
        var failure: (any Error)? = nil
    }

    private let limits: WholeResponseLimits
    /// Set once the request has failed or finished: the head timer is not armed after that.
    private var ended = false
    private var head: HTTPResponseHead?
    private var body: ByteBuffer?
    private var bodyDeadline: NIODeadline?
    private var headTimer: NIOScheduledCallback?
    /// Set once the body is known to be over the limit: the length it declared, if it did.
    private var overLimit: Int64??
    /// Why reading stopped early, if it did: what ``read(_:on:limits:)`` makes of the task's failure.
    private(set) var stopped: Stop?

    enum Stop {
        case headExpired
        case bodyExpired(received: Int)
        case tooLarge(declared: Int64?)
    }

    /// What the task fails with when this reader stops it: only ``read(_:on:limits:)`` sees it.
    struct Stopped: Error {}

    /// AsyncHTTPClient's failure of a request before its response head arrived.
    struct Failure: Error {
        let underlying: any Error
    }

    init(limits: WholeResponseLimits) {
        self.limits = limits
    }

    /// Arms the head timer for `deadline` (set when the request was handed over), on the task's loop.
    private func armHeadTimer(_ task: HTTPClient.Task<Response>, at deadline: NIODeadline) {
        guard head == nil, !ended, stopped == nil else { return }
        timed = task
        headTimer = try? task.eventLoop.scheduleCallback(at: deadline, handler: self)
    }

    /// The task the head timer fails.
    private var timed: HTTPClient.Task<Response>?

    /// The head timer fired: the head is late.
    func handleScheduledCallback(eventLoop: some EventLoop) {
        headTimer = nil
        guard head == nil, stopped == nil else { return }
        stopped = .headExpired
        timed?.fail(reason: Stopped())
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        headTimer?.cancel()
        headTimer = nil
        timed = nil
        if let limit = limits.body { bodyDeadline = .now() + TimeAmount(limit) }
        if let declared = head.headers.first(name: "content-length").flatMap({ HeaderNumber.nonNegative($0) }),
            declared > limits.maxBytes
        {
            overLimit = .some(Int64(declared))
            // The call fails as too large: nothing of the body is needed.
            if limits.acceptable.contains(Int(head.status.code)) { return stop(task, .tooLarge(declared: Int64(declared))) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        var buffer = buffer
        if body == nil {
            body = buffer
        } else {
            body?.writeBuffer(&buffer)
        }
        let received = body?.readableBytes ?? 0
        if received > limits.maxBytes, overLimit == nil { overLimit = .some(nil) }
        if let overLimit,
            received >= ParleyError.excerptLimit || limits.acceptable.contains(Int(head?.status.code ?? 0))
        {
            // Over the limit, with enough for an unacceptable status's excerpt (or none needed): no need for the rest.
            return stop(task, .tooLarge(declared: overLimit))
        }
        if let bodyDeadline, NIODeadline.now() > bodyDeadline { return stop(task, .bodyExpired(received: received)) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Response>, _ error: any Error) {
        ended = true
        headTimer?.cancel()
        headTimer = nil
        timed = nil
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        ended = true
        headTimer?.cancel()
        headTimer = nil
        timed = nil
        // SAFE: AsyncHTTPClient finishes a request only after its head (a redirect is not followed: Parley's client is
        // configured not to), so `head` is set; were it not, the request fails rather than crash.
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        if let overLimit { return Response(head: head, body: limits.tooLarge(excerpt: excerpt, declared: overLimit)) }
        guard let body, body.readableBytes > 0 else { return Response(head: head, body: .buffered(Data())) }
        return Response(head: head, body: .buffered(Data(body.readableBytesView)))
    }

    /// The first bytes of the body, for an error.
    private var excerpt: Data { body.map { Data($0.readableBytesView.prefix(ParleyError.excerptLimit)) } ?? Data() }

    private func stop(_ task: HTTPClient.Task<Response>, _ reason: Stop) -> EventLoopFuture<Void> {
        stopped = reason
        return task.eventLoop.makeFailedFuture(Stopped())
    }

    /// Starts `request` on `client` and waits for it; cancelling the calling task cancels it. Fails with
    /// ``/Parley/HeadDeadline/expired(_:)`` when the head has not come by `head`'s deadline,
    /// ``/Parley/WholeResponseLimits/bodyExpired(_:received:)`` when the body was too slow, else with a ``Failure``.
    static func read(
        _ request: HTTPClient.Request,
        on client: HTTPClient,
        limits: WholeResponseLimits,
        head: (limit: Duration, deadline: NIODeadline)?
    ) async throws -> Response {
        let reader = WholeResponseReader(limits: limits)
        let task = client.execute(request: request, delegate: reader, eventLoop: .indifferent, deadline: nil, logger: nil)
        if let deadline = head?.deadline {
            // The delegate's state lives on the task's loop: the timer is armed there (it fires at once if that
            // deadline has passed by then).
            task.eventLoop.execute { reader.armHeadTimer(task, at: deadline) }
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    task.futureResult.whenComplete { continuation.resume(with: $0) }
                }
            } onCancel: {
                task.cancel()
            }
        } catch {
            // Read on the loop's thread until the task failed, which happened before its future did.
            if error is Stopped, case .headExpired? = reader.stopped { throw HeadDeadline.expired(head?.limit ?? .zero) }
            guard let received = reader.head, !Task.isCancelled else { throw Failure(underlying: error) }
            // After the head: the head, with a body that yields what came of it and then fails as reading it did, as a
            // streamed body would (a middleware above sees the status, then the failure).
            switch reader.stopped {
            case .tooLarge(let declared)? where error is Stopped:
                return Response(head: received, body: limits.tooLarge(excerpt: reader.excerpt, declared: declared))
            case .bodyExpired(let count)? where error is Stopped:
                let expired = WholeResponseLimits.bodyExpired(limits.body ?? .zero, received: count)
                return Response(head: received, body: .failed(excerpt: reader.excerpt, error: expired))
            default:
                return Response(head: received, body: .buffered(reader.excerpt), failure: error)
            }
        }
    }
}
