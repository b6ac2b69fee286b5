public import AsyncHTTPClient
import NIOSSL
public import Parley

extension AsyncHTTPClientTransport {
    /// A transport that creates its own `HTTPClient` with `configuration` and the TLS of `tls`: extra or only roots, a
    /// client certificate (mutual TLS), a minimum version, or no verification.
    ///
    /// - Throws: ``/Parley/ParleyError/Kind/invalidRequest`` when a certificate or key is not PEM, or when `tls` has
    ///   public-key pins: AsyncHTTPClient cannot check them (it gives no way to see the presented chain during the
    ///   handshake, swift-server/async-http-client#285), and a pin silently not checked would be worse than none.
    public init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        tls: TLSPolicy
    ) throws(ParleyError) {
        var configuration = configuration
        configuration.tlsConfiguration = try Self.tlsConfiguration(tls)
        self.init(configuration: configuration)
    }

    /// `configuration` with the TLS of `tls` (for a ``ProxyingTransport``, or an `HTTPClient` of your own).
    ///
    /// - Throws: As ``init(configuration:tls:)``.
    public static func configuration(
        _ configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        tls: TLSPolicy
    ) throws(ParleyError) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.tlsConfiguration = try tlsConfiguration(tls)
        return configuration
    }

    /// The NIOSSL configuration of `policy`.
    static func tlsConfiguration(_ policy: TLSPolicy) throws(ParleyError) -> TLSConfiguration {
        guard policy.pinnedPublicKeys.isEmpty else {
            throw ParleyError(
                .invalidRequest,
                "AsyncHTTPClient cannot check public-key pins: it gives no way to see the server's certificate chain during "
                    + "the handshake (swift-server/async-http-client#285). Trust only the pinned key's CA instead "
                    + "(TLSPolicy(roots: [ca], trustsSystemRoots: false)). Nothing was sent."
            )
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = policy.minimumVersion == .tls13 ? .tlsv13 : .tlsv12
        if !policy.verifiesCertificates { tls.certificateVerification = .none }
        var roots: [NIOSSLCertificate] = []
        for (index, pem) in policy.roots.enumerated() {
            do {
                roots += try NIOSSLCertificate.fromPEMBytes(Array(pem))
            } catch {
                throw ParleyError(.invalidRequest, "Root certificate \(index + 1) of the TLS policy is not PEM: \(error).")
            }
        }
        if policy.trustsSystemRoots {
            if !roots.isEmpty { tls.additionalTrustRoots = [.certificates(roots)] }
        } else {
            guard !roots.isEmpty else {
                throw ParleyError(
                    .invalidRequest,
                    "The TLS policy trusts no system roots and gives none of its own: no server could be trusted."
                )
            }
            tls.trustRoots = .certificates(roots)
        }
        if let client = policy.clientCertificate {
            do {
                tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(client.chain)).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(client.privateKey), format: .pem))
            } catch {
                throw ParleyError(.invalidRequest, "The client certificate or its key is not PEM: \(error).")
            }
        }
        return tls
    }
}
