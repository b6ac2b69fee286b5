import AsyncHTTPClient
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Parley

extension AsyncHTTPClientTransport {
    /// Turns an AsyncHTTPClient or NIO error into a ``/Parley/ParleyError`` with a kind and a plain message.
    ///
    /// - Parameters:
    ///   - afterHead: whether the response head had arrived (the error is about the response body).
    ///   - bodyProgress: the streamed request body, if there is one (what AsyncHTTPClient took of it).
    static func translate(
        _ error: any Error,
        request: HTTPRequest,
        afterHead: Bool = false,
        bodyProgress: RequestBodyProgress? = nil,
        headLimit: Duration? = nil
    ) -> ParleyError {
        // `headLimit` is set only when the head's deadline has passed (see `AsyncHTTPClientTransport.passed`).
        if let error = error as? ParleyError { return error }
        if let headLimit, !(error is CancellationError), (error as? HTTPClientError) != .cancelled {
            // The deadline this transport set for the head (its PipelineTransport send) has passed: the pipeline's head
            // limit, whichever error the request failed with (the deadline's own, or the channel it closed).
            var expired = HeadDeadline.expired(headLimit)
            expired.underlying = error
            return expired
        }
        if error is CancellationError {
            return ParleyError(.cancelled, "The request was cancelled.", underlying: error)
        }
        if let error = error as? InvalidResponseStatus {
            return ParleyError(
                .transport,
                "The response was not valid HTTP/1.1: its status line has the status code \(error.digits), and a status "
                    + "code must be between 100 and 599. The server is broken or is not an HTTP server.",
                underlying: error
            )
        }
        if let error = error as? HTTPParserError {
            return ParleyError(.transport, Self.describe(error, afterHead: afterHead), underlying: error)
        }
        if error is StaleConnection {
            return ParleyError(
                .transport,
                "The server had closed this kept-alive connection (while it was idle) before the request was sent on "
                    + "it, so nothing of the request reached the server. It was not sent again: that is done once, and "
                    + "only when the request body can be read again.",
                underlying: error
            )
        }
        if let error = error as? ChannelError, case .ioOnClosedChannel = error {
            return ParleyError(
                .transport,
                "The server closed the connection before the request could be sent on it (a kept-alive connection it "
                    + "closed while idle); nothing of the request was sent.",
                underlying: error
            )
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .bodyLengthMismatch:
                let declared = request.headerFields[.contentLength].map { " of \($0) bytes" } ?? ""
                let taken = bodyProgress.map { " after \($0.taken) bytes" } ?? ""
                return ParleyError(
                    .invalidRequest,
                    "The request body did not have the length it declared\(declared): its source ended\(taken) or "
                        + "gave more. Nothing more was sent; the connection was closed. A file that changes while it "
                        + "is uploaded does this.",
                    underlying: error
                )
            case .cancelled:
                return ParleyError(.cancelled, "The request was cancelled.", underlying: error)
            case .getConnectionFromPoolTimeout:
                return ParleyError(
                    .timeout,
                    "No connection to the server became free within the connect timeout: more requests were in flight "
                        + "than the connection pool has connections, and they did not finish in time. Raise the connect "
                        + "timeout or the pool size (HTTPClient.Configuration.connectionPool), or send fewer requests at once.",
                    underlying: error
                )
            case .connectTimeout, .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return ParleyError(.timeout, "Connecting to the server timed out (\(error)).", underlying: error)
            case .readTimeout where afterHead:
                return ParleyError(
                    .timeout,
                    "The server stopped sending the response body: nothing arrived within the read timeout (\(error)).",
                    underlying: error
                )
            case .readTimeout, .writeTimeout, .deadlineExceeded:
                return ParleyError(.timeout, "The server did not answer in time (\(error)).", underlying: error)
            case .remoteConnectionClosed where afterHead:
                return ParleyError(
                    .transport,
                    "The server closed the connection before the whole response body arrived.",
                    underlying: error
                )
            case .remoteConnectionClosed:
                return ParleyError(
                    .transport,
                    "The server closed the connection before answering, after the request \(Self.sent(bodyProgress)); "
                        + "the server may or may not have acted on it.",
                    underlying: error
                )
            case .invalidURL, .emptyHost, .emptyScheme:
                return ParleyError(.invalidRequest, "AsyncHTTPClient refused the URL (\(error)).", underlying: error)
            default:
                return ParleyError(.transport, "AsyncHTTPClient failed: \(error).", underlying: error)
            }
        }
        if let error = error as? NIOConnectionError {
            return ParleyError(
                .transport,
                "Could not connect to \(error.host):\(error.port): \(Self.describe(error)).",
                underlying: error
            )
        }
        if let error = error as? IOError {
            return ParleyError(.transport, "A socket operation failed: \(error).", underlying: error)
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return ParleyError(.timeout, "Connecting to the server timed out.", underlying: error)
        }
        if let error = error as? NIOSSLError, case .handshakeFailed(let reason) = error {
            let text = "\(reason)"
            let what =
                if text.contains("CERTIFICATE_VERIFY_FAILED") {
                    "the server's certificate is not trusted (an unknown CA, a wrong host name, or expired): trust its CA "
                        + "with a TLSPolicy (roots:), or `parley --verify CA_FILE`"
                } else if text.contains("UNSUPPORTED_PROTOCOL") || text.contains("PROTOCOL_VERSION") {
                    "the server and the client share no TLS version (see TLSPolicy.minimumVersion)"
                } else {
                    "the TLS handshake failed (\(text))"
                }
            return ParleyError(.transport, "The TLS connection could not be made: \(what).", underlying: error)
        }
        return ParleyError(.transport, "The request failed: \(error).", underlying: error)
    }

    /// Whether `error` says that the request went to a pooled connection that was already closed, before any of
    /// it was written: AsyncHTTPClient's `HTTP1Connection.execute0` fails it with `ioOnClosedChannel` when the channel
    /// is inactive, and ``HTTP1ConnectionGuard`` with ``StaleConnection`` when the kernel knows the peer closed.
    static func isStaleConnection(_ error: any Error) -> Bool {
        if let failure = error as? WholeResponseReader.Failure { return isStaleConnection(failure.underlying) }
        if let error = error as? ChannelError, case .ioOnClosedChannel = error { return true }
        return error is StaleConnection
    }

    /// How much of the request had gone out, in words.
    private static func sent(_ bodyProgress: RequestBodyProgress?) -> String {
        guard let bodyProgress else { return "was sent" }
        return bodyProgress.started ? "head and \(bodyProgress.taken) body bytes were sent" : "head was sent"
    }

    /// What was wrong with a response NIO's HTTP/1.1 parser refused, in words.
    static func describe(_ error: HTTPParserError, afterHead: Bool) -> String {
        let start = "The response was not valid HTTP/1.1: "
        let end = ". The server is broken, or is not an HTTP/1.1 server."
        let what: String
        switch error {
        case .invalidConstant, .invalidVersion:
            what = "its status line does not start with \"HTTP/1.1\" or \"HTTP/1.0\""
        case .invalidStatus:
            what = "its status line has no valid three-digit status code"
        case .invalidHeaderToken, .invalidCharactersUsed:
            what = "a header line has a character that is not allowed there, or has no colon"
        case .invalidContentLength:
            what = "its Content-Length header is not a decimal number"
        case .unexpectedContentLength:
            what = "it has both a Content-Length and a Transfer-Encoding header, or two different Content-Length values"
        case .invalidChunkSize:
            what = "its chunked body framing is broken: a chunk size is not a hexadecimal number"
        case .lfExpected:
            what = "a line ends with CR but no LF"
        case .headerOverflow:
            what = "its head is larger than the parser allows (80 KiB)"
        case .invalidEOFState:
            what = "the connection closed in the middle of it"
        case .closedConnection, .trailingGarbage:
            what = "more bytes followed a response that ended the connection"
        case .unknown where afterHead:
            what =
                "its body framing is broken (for example a chunk not ending with CR LF, or a Transfer-Encoding the "
                + "parser cannot frame), which the parser does not describe further"
        default:
            what =
                "its "
                + (afterHead ? "body framing" : "status line or headers")
                + " are malformed (for example a line not ending with CR LF, or an unsupported Transfer-Encoding), "
                + "which the parser does not describe further"
        }
        return start + what + end
    }

    private static func describe(_ error: NIOConnectionError) -> String {
        if let failure = error.connectionErrors.first {
            if let io = failure.error as? IOError, io.errnoCode == ECONNREFUSED {
                return "connection refused (is the server running and listening on that port?)"
            }
            return String(describing: failure.error)
        }
        if let dns = error.dnsAAAAError ?? error.dnsAError {
            return "the host name could not be resolved (\(dns))"
        }
        return "no address could be connected"
    }
}
