public import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Parley's guard on each HTTP/1.1 connection of AsyncHTTPClient, between NIO's HTTP codec and AsyncHTTPClient's
/// handler. It does three things AsyncHTTPClient 1.37.0 does not.
///
/// - It refuses a response whose status code is below 100. AsyncHTTPClient takes every status below 200 except 101
///   for an interim (1xx) response and waits for the next head; NIO's parser, which knows that only 100–199 have no
///   body, then hands it the body of such a response (`HTTP/1.1 000 Weird`, `Content-Length: 2`, `{}`), or its
///   end, and a `preconditionFailure` in `HTTPRequestStateMachine` ends the process. The guard turns such a head
///   into an ``InvalidResponseStatus`` error for the request (AsyncHTTPClient then fails it and closes the
///   connection) and drops what follows it.
/// - It does not send a request on a connection that the server has already closed. A kept-alive connection that
///   the server closes while it is idle stays in AsyncHTTPClient's pool until its event loop reads the close; a
///   request given to it in between is written into a dead socket and fails. Before the request head goes out, the
///   guard asks the kernel for the connection's TCP state (Linux); if it is no longer established, nothing is
///   written and the request fails with ``StaleConnection``, which the transport answers by sending it again on
///   a new connection.
/// - It ends a request body that is still being sent when the whole response has arrived (a server that answered
///   early), by closing the connection right after the response end has been handed on. AsyncHTTPClient would go
///   on sending the body after the call had returned, or wait forever for a server that no longer reads.
final class HTTP1ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private var refused = false
    private var stale = false
    /// Whether a request's head has gone out and its end not yet.
    private var requestOpen = false
    /// Whether the current response's final (not interim) head has arrived.
    private var finalHead = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.refused else { return }
        switch Self.unwrapInboundIn(data) {
        case .head(let head) where head.status.code < 100:
            self.refused = true
            context.fireErrorCaught(InvalidResponseStatus(code: head.status.code))
            context.close(promise: nil)
            return
        case .head(let head):
            if head.status.code >= 200 || head.status == .switchingProtocols { self.finalHead = true }
        case .body:
            break
        case .end:
            let early = self.finalHead && self.requestOpen
            self.finalHead = false
            guard early else { break }
            // The whole response is here while the request body is still being sent: the server answered without
            // needing the rest (nginx does). The call is over, so the upload ends with it: the connection is closed
            // once the response has been handed on, which stops AsyncHTTPClient's body writer (and the reading of
            // the body's source) even if the server no longer reads at all.
            context.fireChannelRead(data)
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if self.stale {
            promise?.fail(StaleConnection())
            return
        }
        switch Self.unwrapOutboundIn(data) {
        case .head: self.requestOpen = true
        case .end: self.requestOpen = false
        case .body: break
        }
        if case .head = Self.unwrapOutboundIn(data), Self.peerHasClosed(context.channel) {
            self.stale = true
            promise?.fail(StaleConnection())
            // Not from inside AsyncHTTPClient's own write: its handler is in the middle of an action.
            context.eventLoop.assumeIsolated().execute {
                context.fireErrorCaught(StaleConnection())
                context.close(promise: nil)
            }
            return
        }
        context.write(data, promise: promise)
    }

    /// Whether the kernel says that the connection is no longer established (the server sent its FIN, or reset
    /// it), though NIO has not read that yet. Only on Linux; elsewhere `false`.
    private static func peerHasClosed(_ channel: any Channel) -> Bool {
        #if os(Linux) || os(Android)
            // The first four bytes of `struct tcp_info` (Linux copies as many as asked for): the first is `tcpi_state`.
            // Read synchronously, on the channel's event loop, without the future of `SocketOptionProvider`.
            let option = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: CInt(TCP_INFO)))
            guard let options = channel.syncOptions, let head = try? options.getOption(option) else { return false }
            let state = withUnsafeBytes(of: head) { $0[0] }
            return state != 1  // TCP_ESTABLISHED
        #else
            return false
        #endif
    }

    /// Adds a guard to an HTTP/1.1 connection's pipeline, right after its response parser, unless one is there.
    static func install(on channel: any Channel) -> EventLoopFuture<Void> {
        guard channel.eventLoop.inEventLoop else {
            return channel.eventLoop.flatSubmit { Self.install(on: channel) }
        }
        return channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            if (try? pipeline.handler(type: HTTP1ConnectionGuard.self)) != nil { return }
            let parser = try pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
            try pipeline.addHandler(HTTP1ConnectionGuard(), position: .after(parser))
        }
    }
}

/// The server had closed the connection before the request was written on it: nothing of the request was sent.
struct StaleConnection: Error, CustomStringConvertible {
    var description: String { "the server had closed the kept-alive connection before the request was sent on it" }
}

/// A response head whose status code is not a valid HTTP status (below 100).
struct InvalidResponseStatus: Error, CustomStringConvertible {
    let code: UInt

    /// The code as the server sent it, three digits.
    var digits: String {
        let text = String(code)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }

    var description: String { "invalid response status \(digits)" }
}

extension AsyncHTTPClientTransport {
    /// `configuration` with Parley's protections for AsyncHTTPClient added: a response whose status code is below
    /// 100 (`HTTP/1.1 000 …`) fails its request with ``/Parley/ParleyError/Kind/transport`` instead of ending the
    /// process in AsyncHTTPClient 1.37.0 (see the Transports article's known limitations), and a request is not
    /// written on a pooled connection that the server has already closed (the transport sends it again on a new
    /// one).
    ///
    /// ``defaultConfiguration``, ``configuration(connectTimeout:readTimeout:)``,
    /// ``init(configuration:)`` and ``shared`` apply it already; use it for an `HTTPClient` you create yourself
    /// and pass to ``init(client:)``. It keeps an `http1_1ConnectionDebugInitializer` already set (it runs after
    /// Parley's), and applying it twice does no harm.
    ///
    /// It also turns off AsyncHTTPClient's own request spans (`configuration.tracing.tracer`, by default the global
    /// tracer): they record each request's full URL and query unredacted, where API keys and tokens travel. Trace
    /// with Parley's `TracingMiddleware`, which redacts them; set the tracer again after this call to have both.
    public static func protected(_ configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.tracing.tracer = nil
        let previous = configuration.http1_1ConnectionDebugInitializer
        configuration.http1_1ConnectionDebugInitializer = { channel in
            let guarded = HTTP1ConnectionGuard.install(on: channel)
            guard let previous else { return guarded }
            return guarded.flatMap { previous(channel) }
        }
        return configuration
    }
}
