import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// Turns a `URLError` into a ``/Parley/ParleyError`` with a kind and a plain message.
    static func translate(_ error: any Error) -> ParleyError {
        guard let urlError = error as? URLError else {
            return ParleyError.wrapping(error, as: .transport, "URLSession failed: \(error).")
        }
        switch urlError.code {
        case .cancelled:
            return ParleyError(.cancelled, "The request was cancelled.", underlying: urlError)
        case .timedOut:
            return ParleyError(.timeout, "URLSession timed out waiting for the server.", underlying: urlError)
        case .cannotConnectToHost:
            return ParleyError(.transport, "Could not connect to the server (connection refused?).", underlying: urlError)
        case .cannotFindHost, .dnsLookupFailed:
            return ParleyError(.transport, "The host name could not be resolved.", underlying: urlError)
        case .networkConnectionLost:
            return ParleyError(.transport, "The connection was lost before the response completed.", underlying: urlError)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return ParleyError(.transport, "The TLS connection failed: \(urlError.localizedDescription).", underlying: urlError)
        case .unsupportedURL where ["http", "https"].contains(urlError.failingURL?.scheme?.lowercased()):
            // The URL was http(s) and accepted; FoundationNetworking reports curl's "Unsupported HTTP version in
            // response" this way, so the server's answer was not HTTP/1.x.
            return ParleyError(
                .transport,
                "The server's answer is not an HTTP/1.x response URLSession can read (invalid status line or protocol): "
                    + "\(urlError.localizedDescription).",
                underlying: urlError
            )
        case .badURL, .unsupportedURL:
            return ParleyError(
                .invalidRequest,
                "URLSession refused the URL: \(urlError.localizedDescription).",
                underlying: urlError
            )
        default:
            return ParleyError(
                .transport,
                "URLSession failed: \(urlError.localizedDescription) (code \(urlError.code.rawValue)).",
                underlying: urlError
            )
        }
    }
}
