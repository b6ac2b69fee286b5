public import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
public import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AsyncHTTPClientTransport {
    /// A transport that creates its own `HTTPClient` with `configuration` and the TLS of `tls`: extra or only roots, a
    /// client certificate (mutual TLS), a minimum version, no verification, or public-key pins.
    ///
    /// AsyncHTTPClient cannot check pins (it gives no way to see the presented chain during the handshake,
    /// swift-server/async-http-client#285), so when `tls` has pins Parley makes the `https` connections itself: the
    /// transport's `HTTPClient` speaks HTTP/1.1 to a Unix domain socket of Parley's own (in a folder only this user can
    /// enter), and Parley opens the TLS connection with NIOSSL, verifies the chain with swift-certificates (the roots,
    /// the server's name, RFC 5280) and refuses a chain of which no certificate, leaf to root, has a pinned key, before
    /// anything is sent. Such a refusal is a ``/Parley/ParleyError/Kind/transport`` error that lists the chain's pins
    /// (``/Parley/ParleyError/serverPublicKeyPins``). Pinned connections are HTTP/1.1; an origin's socket closes once
    /// it has had no connection and no request for the connection pool's `idleTimeout` (a later request opens a new
    /// one), and ``shutdown()`` closes them all and removes the sockets.
    ///
    /// - Throws: ``/Parley/ParleyError/Kind/invalidRequest`` when a certificate or key is not PEM, or a pin is not the
    ///   base64 of a SHA-256 digest.
    public init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        tls: TLSPolicy
    ) throws(ParleyError) {
        var configuration = configuration
        let roots = try Self.roots(of: tls)
        configuration.tlsConfiguration = try Self.tlsConfiguration(tls, roots: roots)
        guard !tls.pinnedPublicKeys.isEmpty else {
            self.init(configuration: configuration)
            return
        }
        for (index, pin) in tls.pinnedPublicKeys.enumerated() where Data(base64Encoded: pin)?.count != 32 {
            throw ParleyError(
                .invalidRequest,
                "Pin \(index + 1) of the TLS policy is not the base64 of a SHA-256 digest (44 characters ending in =)."
            )
        }
        guard configuration.proxy == nil else {
            throw ParleyError(
                .invalidRequest,
                "A transport with public-key pins makes its https connections itself and cannot send them through the "
                    + "configuration's proxy; remove the proxy or the pins."
            )
        }
        // Redirects are the client's RedirectPolicy's: an HTTPClient that followed one itself would fetch it unpinned.
        configuration.redirectConfiguration = .disallow
        var relayed = try Self.tlsConfiguration(tls, roots: roots)
        // The verification callback replaces BoringSSL's checks: its roots are not loaded, the verifier has them.
        relayed.trustRoots = .certificates([])
        relayed.additionalTrustRoots = []
        relayed.certificateVerification = tls.verifiesCertificates ? .fullVerification : .noHostnameVerification
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: relayed)
        } catch {
            throw ParleyError(.invalidRequest, "The TLS policy could not be applied: \(error).", underlying: error)
        }
        let relay = PinnedTLSRelay(
            context: context,
            verifier: try PinVerifier(policy: tls, roots: roots),
            group: MultiThreadedEventLoopGroup.singleton,
            connectTimeout: configuration.timeout.connect ?? .seconds(10),
            // A socket outlives AsyncHTTPClient's idle connections to it by at most one idle timeout.
            idleTimeout: configuration.connectionPool.idleTimeout
        )
        self.init(configuration: configuration, pinnedRelay: relay)
    }

    /// `configuration` with the TLS of `tls` (for a ``ProxyingTransport``, or an `HTTPClient` of your own).
    ///
    /// - Throws: ``/Parley/ParleyError/Kind/invalidRequest`` when a certificate or key is not PEM, or when `tls` has
    ///   public-key pins, which only ``init(configuration:tls:)`` checks (an `HTTPClient` of its own cannot), and a pin
    ///   silently not checked would be worse than none.
    public static func configuration(
        _ configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        tls: TLSPolicy
    ) throws(ParleyError) -> HTTPClient.Configuration {
        guard tls.pinnedPublicKeys.isEmpty else {
            throw ParleyError(
                .invalidRequest,
                "Public-key pins are checked only by AsyncHTTPClientTransport(tls:), which makes the pinned connections "
                    + "itself; an HTTPClient made from a configuration (or a ProxyingTransport) cannot check them "
                    + "(swift-server/async-http-client#285). Nothing was sent."
            )
        }
        var configuration = configuration
        configuration.tlsConfiguration = try tlsConfiguration(tls, roots: roots(of: tls))
        return configuration
    }

    /// The root certificates of `policy`, parsed.
    static func roots(of policy: TLSPolicy) throws(ParleyError) -> [NIOSSLCertificate] {
        var roots: [NIOSSLCertificate] = []
        for (index, pem) in policy.roots.enumerated() {
            do {
                roots += try NIOSSLCertificate.fromPEMBytes(Array(pem))
            } catch {
                throw ParleyError(.invalidRequest, "Root certificate \(index + 1) of the TLS policy is not PEM: \(error).")
            }
        }
        return roots
    }

    /// The NIOSSL configuration of `policy`, whose roots are `roots`.
    static func tlsConfiguration(_ policy: TLSPolicy, roots: [NIOSSLCertificate]) throws(ParleyError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = policy.minimumVersion == .tls13 ? .tlsv13 : .tlsv12
        if !policy.verifiesCertificates { tls.certificateVerification = .none }
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

extension AsyncHTTPClientTransport {
    /// The pinned origins whose relay socket is open now (for tests).
    package var pinnedListenerCount: Int { pinnedRelay?.listenerCount ?? 0 }

    /// Each pinned origin whose socket closed for idleness, as `host:port` (for tests).
    package var pinnedIdleClosures: AsyncStream<String> { pinnedRelay?.idleClosures ?? AsyncStream { $0.finish() } }
}
