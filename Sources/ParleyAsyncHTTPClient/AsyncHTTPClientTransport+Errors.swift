import AsyncHTTPClient
import HTTPTypes
import NIOCore
import NIOPosix
import Parley

extension AsyncHTTPClientTransport {
    /// Turns an AsyncHTTPClient or NIO error into a ``/Parley/ParleyError`` with a kind and a plain message.
    static func translate(_ error: any Error, request: HTTPRequest, afterHead: Bool = false) -> ParleyError {
        if let error = error as? ParleyError { return error }
        if error is CancellationError {
            return ParleyError(.cancelled, "The request was cancelled.", underlying: error)
        }
        if let error = error as? HTTPClientError {
            switch error {
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
                return ParleyError(.transport, "The server closed the connection before answering.", underlying: error)
            case .invalidURL, .emptyHost, .emptyScheme:
                return ParleyError(.invalidRequest, "AsyncHTTPClient refused the URL (\(error)).", underlying: error)
            default:
                return ParleyError(.transport, "AsyncHTTPClient failed: \(error).", underlying: error)
            }
        }
        if let error = error as? NIOConnectionError {
            return ParleyError(.transport, "Could not connect to \(error.host):\(error.port): \(Self.describe(error)).", underlying: error)
        }
        if let error = error as? IOError {
            return ParleyError(.transport, "A socket operation failed: \(error).", underlying: error)
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return ParleyError(.timeout, "Connecting to the server timed out.", underlying: error)
        }
        return ParleyError(.transport, "The request failed: \(error).", underlying: error)
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
