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
/// (``/Parley/WholeResponseTransport``): the body is gathered where it arrives and handed to the caller once, with
/// its head, instead of crossing from the event loop to the caller chunk by chunk.
///
/// It bounds what it reads where the bytes arrive:
/// - the head must arrive within ``WholeResponseLimits/head`` of the request being sent (a timer on the loop, started
///   when AsyncHTTPClient has written the request);
/// - the body must arrive in full within ``WholeResponseLimits/body`` of its head (the clock read as each part arrives,
///   as ``BodyDeadline`` does; a server that stops sending is caught by the read timeout);
/// - past ``WholeResponseLimits/maxBytes`` (or with a `Content-Length` above it) reading stops and the connection is
///   closed (``/Parley/WholeBody/tooLarge(excerpt:declared:)``): at once under an acceptable status, after the first
///   ``/Parley/ParleyError/excerptLimit`` bytes (the error's excerpt) under any other.
// swift-format-ignore
final class WholeResponseReader: HTTPClientResponseDelegate, NIOScheduledCallbackHandler, @unchecked Sendable {  // SAFE: AsyncHTTPClient calls every delegate method on the task's event loop (RequestBag), and NIO runs the timer's handler on the loop it was scheduled on, the same one: the mutable state is touched on that one thread while the request runs; `read` reads it only after the task's future completed there, the continuation it resumed ordering those writes first.
    /// The head and the body (a struct, not a tuple: a tuple's metadata is looked up at run time on every call).
    struct Response: Sendable {
        let head: HTTPResponseHead
        let body: WholeBody
    }

    private let limits: WholeResponseLimits
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

    /// AsyncHTTPClient's failure of a request, and whether the response head had arrived before it.
    struct Failure: Error {
        let underlying: any Error
        let afterHead: Bool
    }

    init(limits: WholeResponseLimits) {
        self.limits = limits
    }

    /// The head's clock starts once the whole request has been written.
    func didSendRequest(task: HTTPClient.Task<Response>) {
        guard head == nil, let limit = limits.head else { return }
        timed = task
        headTimer = try? task.eventLoop.scheduleCallback(at: .now() + TimeAmount(limit), handler: self)
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
        if let declared = head.headers.first(name: "content-length").flatMap({ Int64($0) }), declared > limits.maxBytes {
            overLimit = .some(declared)
            // The call fails as too large: nothing of the body is needed.
            if limits.acceptable.contains(Int(head.status.code)) { return stop(task, .tooLarge(declared: declared)) }
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
        headTimer?.cancel()
        headTimer = nil
        timed = nil
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        headTimer?.cancel()
        headTimer = nil
        timed = nil
        // SAFE: AsyncHTTPClient finishes a request only after its head (a redirect is not followed: Parley's client is
        // configured not to), so `head` is set; were it not, the request fails rather than crash.
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        if let overLimit { return Response(head: head, body: .tooLarge(excerpt: excerpt, declared: overLimit)) }
        guard let body, body.readableBytes > 0 else { return Response(head: head, body: .complete(Data())) }
        return Response(head: head, body: .complete(Data(body.readableBytesView)))
    }

    /// The first bytes of the body, for an error.
    private var excerpt: Data { body.map { Data($0.readableBytesView.prefix(ParleyError.excerptLimit)) } ?? Data() }

    private func stop(_ task: HTTPClient.Task<Response>, _ reason: Stop) -> EventLoopFuture<Void> {
        stopped = reason
        return task.eventLoop.makeFailedFuture(Stopped())
    }

    /// Starts `request` on `client` and waits for it; cancelling the calling task cancels it. Fails with
    /// ``HeadDeadline/expired(_:)`` or ``WholeResponseLimits/bodyExpired(_:received:)`` when a limit passed, else with
    /// a ``Failure``.
    static func read(
        _ request: HTTPClient.Request,
        on client: HTTPClient,
        limits: WholeResponseLimits
    ) async throws -> Response {
        let reader = WholeResponseReader(limits: limits)
        let task = client.execute(request: request, delegate: reader, eventLoop: .indifferent, deadline: nil, logger: nil)
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
            guard error is Stopped, let stopped = reader.stopped else {
                throw Failure(underlying: error, afterHead: reader.head != nil)
            }
            switch stopped {
            case .headExpired:
                throw HeadDeadline.expired(limits.head ?? .zero)
            case .bodyExpired(let received):
                throw WholeResponseLimits.bodyExpired(limits.body ?? .zero, received: received)
            case .tooLarge(let declared):
                guard let head = reader.head else { throw Failure(underlying: error, afterHead: false) }
                return Response(head: head, body: .tooLarge(excerpt: reader.excerpt, declared: declared))
            }
        }
    }
}
