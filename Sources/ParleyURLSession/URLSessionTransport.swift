public import HTTPTypes
public import OpenAPIRuntime
public import Parley

#if canImport(FoundationNetworking)
    public import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A `ClientTransport` on Foundation's `URLSession` (FoundationNetworking on Linux), with an injectable session.
///
/// The session you pass is used as is and never invalidated (each request gets its own task delegate).
/// The response head is returned as soon as it arrives and the body streams chunk by chunk, so a size limit
/// stops the download early; cancelling the calling task or dropping the body cancels the data task.
/// Request bodies of known length up to 256 KiB are sent from memory; larger ones, and bodies of unknown length
/// (sent chunked), stream through a 1 MiB buffer on Linux. Failures are reported as ``/Parley/ParleyError``.
///
/// URLSession decodes `gzip` and `deflate` response bodies itself (and `br` on Apple platforms; on Linux whatever
/// libcurl was built with, often `br` and `zstd` too), whatever `Accept-Encoding` the request sent, and cannot be
/// told not to; the transport then removes the response's `Content-Encoding` and `Content-Length`, which no longer
/// describe the bytes, so the client's `ResponseDecompression` does not inflate them twice. Its limits still apply:
/// the transport counts what URLSession inflates and fails the body with `bodyTooLarge` past `maxSize`, or past
/// `maxRatio` times the compressed size. URLSession does not say how many compressed bytes have arrived, so the
/// ratio is taken against the whole compressed body, its `Content-Length` (a 10 MB bomb stops after about 1 GB
/// inflated, where AsyncHTTPClient stops it after 1 MiB), or 1 MiB when there is none (it stops at 100 MiB). A
/// gzip stream cut short but framed completely is not detected (libcurl does not check that it ended).
///
/// Interim responses (`100`, `103 Early Hints`; any `1xx` but `101`) are skipped: the call returns the final
/// response. A response whose `Content-Length` is repeated, a list or out of range fails with `.transport`, as on
/// AsyncHTTPClient. A body that is dropped or cancelled is discarded from then on, and a response whose reader is
/// behind holds at most 64 MiB before URLSession is made to wait (see ``init(configuration:backPressure:)``).
///
/// ## On Linux, do not use it with servers you do not trust
///
/// FoundationNetworking runs every URLSession transfer of the process on one serial work queue, and a hostile or
/// broken server can hold that queue or crash the process; Parley cannot prevent it, and every URLSession call of
/// the process (Parley's or not) waits while it lasts. Calls on `AsyncHTTPClientTransport` and the rest of the
/// process go on, since Parley never waits for that queue on a Swift concurrency thread. Known cases with the
/// Swift 6.3 toolchain:
/// - a chunked response with trailer fields after its last chunk makes FoundationNetworking stop the process
///   (`fatalError` "Transfer completed, but there's no response"; fixed in swift-corelibs-foundation for 6.4,
///   where the call fails instead), and 100 000 trailer fields hold the queue for minutes before that;
/// - a redirect (`301`–`308` but `304`) is held whole in memory, body included, before anyone sees it, so a 3xx
///   with a 10 GiB body grows memory and holds the queue until the call's deadline cancels it;
/// - what libcurl inflates runs on that queue until the limits above stop it.
///
/// Use `AsyncHTTPClientTransport` (the default on Linux) for any server you do not control.
public struct URLSessionTransport: ShutdownTransport {
    /// The session requests run on: the one you passed, or the first of the sessions this transport made.
    /// An owned transport runs each request in flight on a session of its own with `session`'s configuration.
    public let session: URLSession
    /// The sessions this transport owns (``session`` is the first of them); `nil` for an injected session.
    let pool: SessionPool?
    /// Whether responses on owned sessions are held while their consumer is behind (see ``init(configuration:backPressure:)``).
    let backPressure: Bool

    /// A transport on a session you own (such as `URLSession.shared`). Parley never invalidates it.
    ///
    /// Such a session follows redirects as its own delegate says (by default it follows them), so the client's
    /// `RedirectPolicy` sees only the final response; a transport with its own sessions leaves every redirect to
    /// the policy.
    ///
    /// On Linux, FoundationNetworking delivers a response to an injected session only when it is complete,
    /// so the body is buffered by URLSession before Parley sees it; use ``init(configuration:backPressure:)`` to stream.
    public init(session: URLSession) {
        self.session = session
        self.pool = nil
        self.backPressure = false
    }

    /// A transport that creates its own sessions from `configuration` and streams every response. Each request
    /// in flight runs on a session of its own (reused afterwards, see ``session``).
    /// ``shutdown()`` (or `Client.shutdown()`) invalidates the sessions once their tasks finished.
    ///
    /// - Parameters:
    ///   - configuration: The configuration of the sessions this transport makes (see ``defaultConfiguration``).
    ///   - backPressure: How far a response's consumer may fall behind before URLSession is made to wait. Either
    ///     way what one response buffers is bounded (a 1 GiB download into a file peaks below 32 MiB while the
    ///     writes keep up). Off (the default), up to 64 MiB are buffered, then delivery waits until the consumer
    ///     is down to 32 MiB; on, 2 MiB and 512 KiB.
    ///     Either way delivery also waits while the session's delegate queue is behind (256 events, 4 MiB, by
    ///     default; 8 with back-pressure). On Linux the only way to stop FoundationNetworking is to hold its work
    ///     queue (it cannot pause one task: suspending it starts the request over), which every URLSession of the
    ///     process shares, so while one consumer is that far behind every URLSession transfer of the process waits
    ///     (at most 2 s per curl write, so two responses read one after the other crawl rather than deadlock). The
    ///     larger default buffer makes that rare for a consumer that is only slower than the network; turn
    ///     back-pressure on to keep memory lowest in a process that streams large responses over URLSession and
    ///     does little else with it, or use `AsyncHTTPClientTransport`, whose back-pressure is per connection. On
    ///     Apple platforms it changes nothing.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration, backPressure: Bool = false) {
        let pool = SessionPool(configuration: configuration)
        self.session = pool.primary
        self.pool = pool
        self.backPressure = backPressure
    }

    /// `URLSessionConfiguration.default` without the cookie jar and the response cache, so that a request sends
    /// exactly the header fields its client and middlewares set, and every response comes from the server, as on
    /// `AsyncHTTPClientTransport`. (With the shared cookie jar, a cookie set by one server on 127.0.0.1 is sent to
    /// every port of that host, and replaces a `Cookie` field the request sets itself.) Pass your own
    /// configuration to have URLSession keep cookies or cache responses.
    public static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Invalidates the sessions if this transport created them; an injected session is left alone.
    public func shutdown() async throws {
        pool?.shutdown()
    }

    /// Sends the request on a data task.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var urlRequest = try Self.urlRequest(for: request, baseURL: baseURL)
        let upload = try await Self.attach(body, to: &urlRequest)
        do {
            try Task.checkCancellation()
        } catch {
            upload?.cancel()
            throw error
        }
        guard let pool else { return try await sendBuffered(urlRequest, method: request.method, upload: upload) }
        let gate = ResponseGate(backPressure: backPressure)
        let member = pool.lease(gatedBy: gate)
        let delegate = StreamingTaskDelegate(
            upload: upload,
            gate: gate,
            decompression: ResponseDecompression.forTransport,
            onComplete: { pool.release(member) }
        )
        let task = await Self.dataTask(on: member.session, for: urlRequest)
        member.router.register(delegate, for: task)
        let urlResponse = try await delegate.head(of: task)
        guard let http = urlResponse as? HTTPURLResponse else {
            delegate.cancel(task)
            throw ParleyError(.transport, "The response is not an HTTP response (\(type(of: urlResponse))).")
        }
        do {
            try Self.checkFraming(of: http)
        } catch {
            delegate.cancel(task)
            throw error
        }
        let response = Self.response(http)
        if request.method == .head {
            delegate.cancel(task)
            return (response, nil)
        }
        // URLSession hands over decoded bytes: with a Content-Encoding, the declared length is not theirs.
        let encoded = http.value(forHTTPHeaderField: "Content-Encoding") != nil
        let length: HTTPBody.Length =
            http.expectedContentLength >= 0 && !encoded ? .known(http.expectedContentLength) : .unknown
        return (response, HTTPBody(delegate.body, length: length, iterationBehavior: .single))
    }

    static func response(_ http: HTTPURLResponse) -> HTTPResponse {
        var response = HTTPResponse(
            status: HTTPResponse.Status(code: http.statusCode, reasonPhrase: Self.reasonPhrase(http.statusCode))
        )
        for (key, value) in http.allHeaderFields {
            guard let key = key as? String, let name = HTTPField.Name(key), let value = value as? String else { continue }
            guard name == .setCookie else {
                response.headerFields.append(HTTPField(name: name, value: value))
                continue
            }
            // FoundationNetworking combines the Set-Cookie fields into one with commas: split again, one per cookie.
            for cookie in SetCookie.splitCombined(value) {
                response.headerFields.append(HTTPField(name: .setCookie, value: cookie))
            }
        }
        return Self.removingSessionDecodedCoding(response)
    }

    /// HTTPURLResponse's phrase with the first letter of each word capitalised ("Not Found").
    static func reasonPhrase(_ code: Int) -> String {
        HTTPURLResponse.localizedString(forStatusCode: code)
            .split(separator: " ").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    static func urlRequest(for request: HTTPRequest, baseURL: URL) throws -> URLRequest {
        let target = RequestTarget.of(request, baseURL: baseURL)
        let text = target.text
        if target.unixSocketPath != nil {
            throw ParleyError(
                .invalidRequest,
                "URLSession cannot connect to a Unix domain socket (\(target.scheme)://…): use AsyncHTTPClientTransport, "
                    + "the default transport on Linux, for such a base URL. Nothing was sent."
            )
        }
        guard let url = URL(string: text) else {
            throw ParleyError(.invalidRequest, "URLSession cannot represent the URL \(String(reflecting: text)).")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        // A Cookie field's crumbs (HTTPFields keeps one field per cookie) go as one line joined with "; " (RFC 6265,
        // section 5.4): addValue would join them with commas, which servers read as one broken cookie.
        var cookies: [String] = []
        for field in request.headerFields {
            if field.name == .cookie {
                cookies.append(field.value)
                continue
            }
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        if !cookies.isEmpty { urlRequest.setValue(cookies.joined(separator: "; "), forHTTPHeaderField: "Cookie") }
        return urlRequest
    }
}
