public import AsyncHTTPClient
public import HTTPTypes
import NIOCore
import NIOHTTP1
public import OpenAPIRuntime
public import Parley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A `ClientTransport` on AsyncHTTPClient: streams request and response bodies, keeps repeated header
/// fields, reuses pooled connections, and reports failures as ``/Parley/ParleyError``.
///
/// - `AsyncHTTPClientTransport(client:)` uses an `HTTPClient` you own; Parley never shuts it down.
/// - `AsyncHTTPClientTransport(configuration:)` creates its own `HTTPClient`; ``shutdown()`` (or
///   `Client.shutdown()`) shuts it down.
/// - ``shared`` uses `HTTPClient.shared`, which lives as long as the process and needs no shutdown.
public struct AsyncHTTPClientTransport: ShutdownTransport {
    /// The underlying client.
    public let client: HTTPClient
    /// Whether this transport created ``client`` and so shuts it down.
    package let ownsClient: Bool
    /// Carries `https` connections when the transport's TLS policy pins public keys (``init(configuration:tls:)``).
    let pinnedRelay: PinnedTLSRelay?
    /// The client's event loops as task executors, for reading a whole response on one
    /// (``readWhole(_:request:limits:headLimit:headDeadline:)``).
    let loopExecutors: EventLoopTaskExecutors

    /// A transport on an `HTTPClient` you own. ``shutdown()`` leaves it running.
    ///
    /// Give it `redirectConfiguration = .disallow` (as ``defaultConfiguration`` does) so that the client's
    /// `RedirectPolicy` sees every redirect; an `HTTPClient` that follows redirects itself hands Parley only the
    /// final response, and keeps credentials across origins as AsyncHTTPClient does.
    public init(client: HTTPClient) {
        self.client = client
        self.ownsClient = false
        self.pinnedRelay = nil
        self.loopExecutors = EventLoopTaskExecutors(client.eventLoopGroup)
    }

    /// A transport that creates (and, on ``shutdown()``, shuts down) its own `HTTPClient`, with Parley's
    /// protections (``protected(_:)``) added to `configuration`.
    public init(configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration) {
        self.init(configuration: configuration, pinnedRelay: nil)
    }

    /// A transport that creates its own `HTTPClient`, its `https` connections carried by `pinnedRelay` if there is one.
    init(configuration: HTTPClient.Configuration, pinnedRelay: PinnedTLSRelay?) {
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.protected(configuration))
        self.ownsClient = true
        self.pinnedRelay = pinnedRelay
        self.loopExecutors = EventLoopTaskExecutors(client.eventLoopGroup)
    }

    /// AsyncHTTPClient's defaults, except that a failed connection attempt fails the request at once
    /// (``/Parley/ParleyError/Kind/transport``) instead of being retried until the deadline (retrying is the job of
    /// a retry middleware, which knows which requests are safe to repeat), that a connection on which
    /// nothing arrives for 60 seconds fails with ``/Parley/ParleyError/Kind/timeout`` (10 seconds to connect), and that
    /// redirects are not followed here but by the client's `RedirectPolicy`, the same on every transport. It has
    /// Parley's protections (``protected(_:)``): a response with a status code below 100 fails its request instead
    /// of ending the process.
    public static var defaultConfiguration: HTTPClient.Configuration {
        configuration()
    }

    /// ``defaultConfiguration`` with other timeouts: `connect` bounds establishing a connection (TCP and TLS),
    /// `read` the wait for each next byte of a response.
    public static func configuration(
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(60)
    ) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        configuration.timeout = HTTPClient.Configuration.Timeout(
            connect: TimeAmount(connectTimeout),
            read: TimeAmount(readTimeout)
        )
        return protected(configuration)
    }

    /// A transport on a process-wide `HTTPClient` with ``defaultConfiguration``. Like `HTTPClient.shared`
    /// it lives as long as the process and needs no shutdown (``shutdown()`` leaves it running).
    public static let shared = AsyncHTTPClientTransport(client: sharedClient)

    private static let sharedClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: defaultConfiguration)

    /// Shuts down the `HTTPClient` if this transport created it; otherwise does nothing.
    public func shutdown() async throws {
        guard ownsClient else { return }
        do {
            try await client.shutdown()
        } catch {
            await pinnedRelay?.shutdown()
            throw error
        }
        await pinnedRelay?.shutdown()
    }

    /// Sends the request. The URL comes from the request's scheme, authority and path when present
    /// (as Parley's `Client` sets them), otherwise from `baseURL` followed by the path.
    ///
    /// A request put on a pooled connection that the server had closed while it was idle, before anything of it was
    /// written, is sent again once on a new connection. A streamed request body ends when the response does: a
    /// server that answers before it has read the whole body (nginx may) gets no more of it, and the connection is
    /// closed.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let payload = try await Payload.of(body)
        return try await route(request, body: body, baseURL: baseURL) { url, host in
            try await execute(Outgoing(request, url: url, host: host, payload: payload), request: request, head: nil)
        }
    }

    /// Sends the request (by `perform`, given the URL to hand AsyncHTTPClient and the `Host` field to send when that
    /// URL is not the server's) straight to its server, or, for a pinned client's `https` request, through the relay.
    ///
    /// - Parameter isIdempotent: whether the request may be sent twice; `nil` for what the call in progress says
    ///   (``/Parley/CallContext``), else the method.
    func route<Result>(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        isIdempotent: Bool? = nil,
        perform: (_ url: String, _ host: String?) async throws -> Result
    ) async throws -> Result {
        guard let pinnedRelay else { return try await perform(RequestTarget.text(of: request, baseURL: baseURL), nil) }
        let target = RequestTarget.of(request, baseURL: baseURL)
        guard target.scheme == "https" else { return try await perform(target.text, nil) }
        guard let origin = PinnedTLSRelay.Origin(target) else {
            // Never sent unpinned: a pinned client's https request whose server Parley cannot tell.
            throw ParleyError(
                .invalidRequest,
                "The request's host and port could not be read, so its pins could not be checked; nothing was sent."
            )
        }
        // A pinned client's https request: AsyncHTTPClient speaks HTTP/1.1 to the relay's socket for the origin, and the
        // relay makes (and checks) the TLS connection. A connection the relay refused fails the request with the
        // relay's reason (an unpinned key, an untrusted chain), not with the closed socket AsyncHTTPClient saw.
        // The connection guard cannot see a relayed connection's server close it while idle (it reads TCP state, and
        // this is a Unix socket), so a request can be written just as that happens and fail unanswered: an idempotent
        // one whose body can be read again is then sent once more on a new connection, as RFC 9110 (9.2.2) lets a
        // client do, by the one stale-connection resend.
        let idempotent = isIdempotent ?? CallContext.current?.isIdempotent ?? CallContext.isIdempotent(request.method)
        let repeatable = body.map { $0.iterationBehavior == .multiple } ?? true
        return try await pinnedRelay.withURL(for: origin, pathAndQuery: target.pathAndQuery) { relayURL in
            try await Self.resendingOnStaleConnection(
                canResend: { idempotent && repeatable },
                isStale: Self.closedUnanswered
            ) {
                let mark = pinnedRelay.mark()
                do {
                    return try await perform(relayURL, target.authority)
                } catch {
                    // Only for a connection that closed under AsyncHTTPClient: a cancellation or a timeout is the call's own.
                    if let error = error as? ParleyError, error.kind == .cancelled || error.kind == .timeout { throw error }
                    throw pinnedRelay.failure(of: origin, since: mark) ?? error
                }
            }
        }
    }

    /// Whether `error` says the connection closed before any of the response arrived.
    private static func closedUnanswered(_ error: any Error) -> Bool {
        let underlying = (error as? ParleyError)?.underlying ?? error
        if let error = underlying as? HTTPClientError { return error == .remoteConnectionClosed }
        if let error = underlying as? IOError { return error.errnoCode == EPIPE || error.errnoCode == ECONNRESET }
        if let error = underlying as? ChannelError {
            switch error {
            case .eof, .ioOnClosedChannel, .outputClosed: return true
            default: return false
            }
        }
        return false
    }

    /// Sends `outgoing` by AsyncHTTPClient's streaming API, the wait for its head bounded by `head` (its limit, and the
    /// deadline that limit set when the request was handed over) through AsyncHTTPClient's own deadline, which ends
    /// when the head arrives.
    private func execute(
        _ outgoing: Outgoing,
        request: HTTPRequest,
        head: (limit: Duration, deadline: NIODeadline)?
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let deadline = head?.deadline ?? .distantFuture
        var bodyProgress: RequestBodyProgress?
        let incoming: HTTPClientResponse
        do {
            incoming = try await Self.resendingOnStaleConnection(
                before: deadline,
                canResend: { bodyProgress?.started != true || outgoing.payload.canBeSentAgain }
            ) { () async throws -> HTTPClientResponse in
                let streaming: HTTPClientRequest
                (streaming, bodyProgress) = outgoing.streaming(on: client.eventLoopGroup)
                return try await client.execute(streaming, deadline: deadline)
            }
        } catch {
            let expired = NIODeadline.now() >= deadline ? head?.limit : nil
            throw Self.translate(error, request: request, bodyProgress: bodyProgress, headLimit: expired)
        }
        let response = Self.response(status: incoming.status, headers: incoming.headers)
        if request.method == .head { return (response, nil) }
        let length: HTTPBody.Length =
            if let header = response.headerFields[.contentLength], let count = HeaderNumber.nonNegative(header) {
                .known(Int64(count))
            } else {
                .unknown
            }
        let responseBody = HTTPBody(
            TranslatedBody(base: incoming.body, request: request, bodyProgress: bodyProgress),
            length: length,
            iterationBehavior: .single
        )
        return (response, responseBody)
    }

    /// The one resend of a request lost on a stale connection: `attempt`, and once more when it failed because the pool
    /// handed out a kept-alive connection that the server had already closed while it was idle, nothing of the request
    /// written on it (``isStaleConnection(_:)``, or `isStale` for a relayed connection, whose closing the connection
    /// guard cannot see). Sending it again on a new connection is then safe for any method, as long as the body can be
    /// sent again and the caller allows it (`canResend`) and the head's `deadline` has not passed.
    ///
    /// Not after a cancellation: cancelling a request closes its channel, which can also read as "I/O on closed
    /// channel", and a resend then would open a new connection for a call that is over.
    static func resendingOnStaleConnection<Result>(
        before deadline: NIODeadline = .distantFuture,
        canResend: () -> Bool = { true },
        isStale: (any Error) -> Bool = isStaleConnection,
        _ attempt: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await attempt()
        } catch  where isStale(error) && !Task.isCancelled && NIODeadline.now() < deadline && canResend() {
            return try await attempt()
        }
    }

    /// The header lines AsyncHTTPClient sends for `request`, with `host` as its `Host` when given (a relayed request).
    static func headers(of request: HTTPRequest, host: String?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count + 1)
        if let host { headers.add(name: "Host", value: host) }
        // HTTPFields keeps a Cookie field as crumbs (one field per cookie, as HTTP/2 does); HTTP/1.1 wants one line
        // (RFC 6265, section 5.4; RFC 9113, section 8.2.3): several Cookie lines reach many servers as one broken value.
        var cookies: [String] = []
        for field in request.headerFields {
            if field.name == .cookie {
                cookies.append(field.value)
                continue
            }
            // A relayed request's Host is the server's, set above: one Host line only.
            if host != nil, field.name.canonicalName == "host" { continue }
            headers.add(name: field.name.rawName, value: field.value)
        }
        if !cookies.isEmpty { headers.add(name: "Cookie", value: cookies.joined(separator: "; ")) }
        return headers
    }

    /// The response head NIO parsed, as swift-http-types' (the names NIO validated are not validated again when they
    /// are common ones).
    static func response(status: HTTPResponseStatus, headers: HTTPHeaders) -> HTTPResponse {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for header in headers {
            guard let name = fieldName(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        return HTTPResponse(
            status: HTTPResponse.Status(code: Int(status.code), reasonPhrase: status.reasonPhrase),
            headerFields: fields
        )
    }

    /// Request bodies of a known length up to this many bytes are read into one buffer and sent with the head;
    /// longer ones, and bodies of unknown length, stream.
    static let wholeRequestBodyLimit: Int64 = 256 * 1024

    /// The field name for a response header, without validating and lowercasing the most common ones again.
    @inline(__always)
    static func fieldName(_ name: String) -> HTTPField.Name? {
        switch name {
        case "content-type", "Content-Type": .contentType
        case "content-length", "Content-Length": .contentLength
        case "date", "Date": .date
        case "server", "Server": .server
        case "connection", "Connection": .connection
        case "transfer-encoding", "Transfer-Encoding": .transferEncoding
        case "cache-control", "Cache-Control": .cacheControl
        case "set-cookie", "Set-Cookie": .setCookie
        default: HTTPField.Name(name)
        }
    }
}

extension TimeAmount {
    /// `duration` in nanoseconds, saturating at the largest amount.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self = overflow ? .nanoseconds(.max) : .nanoseconds(whole &+ attoseconds / 1_000_000_000)
    }
}

extension AsyncHTTPClientTransport: PipelineTransport {
    /// Sends the request for Parley's `Client`, the head bounded by ``/Parley/HeadDeadline``'s one clock: from now for a
    /// request that goes out at once (no body, or one short enough to go with the head, ``wholeRequestBodyLimit``),
    /// through AsyncHTTPClient's deadline or the whole reader's timer; from the body's last byte for a streamed one.
    ///
    /// A call that reads its body whole anyway (``/Parley/CallScope/whole``) has it read on the connection's event loop
    /// (``readWhole(_:request:limits:headLimit:headDeadline:)``) unless its request body streams.
    package func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        scope: CallScope
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        let payload = try await Payload.of(body)
        if case .stream = payload {
            let operationID = scope.operationID
            guard let limit = scope.headTimeout else {
                let (response, responseBody) = try await send(request, body: body, baseURL: baseURL, operationID: operationID)
                return (response, .streaming(responseBody))
            }
            let head = HeadDeadline(limit: limit)
            let (body, sent) = head.watching(body)
            let (response, responseBody) = try await head.send(startingAt: sent) {
                try await self.send(request, body: body, baseURL: baseURL, operationID: operationID)
            }
            return (response, .streaming(responseBody))
        }
        let head = scope.headTimeout.map { (limit: $0, deadline: NIODeadline.now() + TimeAmount($0)) }
        return try await route(request, body: body, baseURL: baseURL) { url, host in
            let outgoing = Outgoing(request, url: url, host: host, payload: payload)
            if let limits = scope.whole {
                return try await readWhole(outgoing, request: request, limits: limits, head: head)
            }
            let (response, responseBody) = try await execute(outgoing, request: request, head: head)
            return (response, .streaming(responseBody))
        }
    }
}
