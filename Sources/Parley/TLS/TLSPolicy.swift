#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// How a client's TLS connections are trusted: extra roots, or only these roots, a client certificate (mutual TLS), a
/// minimum version, public-key pins.
///
/// ```swift
/// let policy = TLSPolicy(roots: [try Data(contentsOf: companyCA)], clientCertificate: .init(chain: pem, privateKey: key))
/// let transport = try AsyncHTTPClientTransport(tls: policy)   // ParleyAsyncHTTPClient
/// ```
///
/// Certificates and keys are PEM (`-----BEGIN CERTIFICATE-----`). AsyncHTTPClient applies every part
/// (`AsyncHTTPClientTransport(tls:)`, which makes pinned connections itself, since AsyncHTTPClient cannot check pins:
/// swift-server/async-http-client#285); URLSession on Linux trusts the system's roots only (FoundationNetworking has no
/// API for more).
public struct TLSPolicy: Sendable, Hashable {
    /// The oldest TLS version accepted.
    public enum Version: String, Sendable, Hashable {
        case tls12 = "1.2"
        case tls13 = "1.3"
    }

    /// A certificate chain (leaf first) and its private key, in PEM, presented to servers that ask for one.
    public struct ClientCertificate: Sendable, Hashable {
        /// The certificates, leaf first, in PEM.
        public var chain: Data
        /// The private key, in PEM (unencrypted).
        public var privateKey: Data

        /// A client certificate.
        public init(chain: Data, privateKey: Data) {
            self.chain = chain
            self.privateKey = privateKey
        }
    }

    /// Root certificates (PEM) trusted beside the system's, or instead of them when ``trustsSystemRoots`` is `false`.
    public var roots: [Data]
    /// Whether the system's roots are trusted too (`true` by default).
    public var trustsSystemRoots: Bool
    /// Presented to servers that ask for a client certificate.
    public var clientCertificate: ClientCertificate?
    /// The oldest TLS version accepted (1.2 by default).
    public var minimumVersion: Version
    /// Whether server certificates are verified at all (`true`). `false` (curl's `--insecure`) trusts any server,
    /// and any attacker between: for a test server only.
    public var verifiesCertificates: Bool
    /// SHA-256 hashes of trusted public keys (SPKI, base64, curl's `sha256//` form without the prefix): a connection
    /// whose verified chain (leaf to trusted root) holds none of them fails before anything is sent, and its error's
    /// ``ParleyError/serverPublicKeyPins`` lists the chain's. Give a backup pin (the next key, or the CA's) beside
    /// the current one. See the type's description for the transports that can check them.
    public var pinnedPublicKeys: [String]

    /// A policy.
    public init(
        roots: [Data] = [],
        trustsSystemRoots: Bool = true,
        clientCertificate: ClientCertificate? = nil,
        minimumVersion: Version = .tls12,
        verifiesCertificates: Bool = true,
        pinnedPublicKeys: [String] = []
    ) {
        self.roots = roots
        self.trustsSystemRoots = trustsSystemRoots
        self.clientCertificate = clientCertificate
        self.minimumVersion = minimumVersion
        self.verifiesCertificates = verifiesCertificates
        self.pinnedPublicKeys = pinnedPublicKeys
    }

    /// The pins of curl's `--pinned-pubkey` form: `sha256//BASE64[;sha256//BASE64…]`; `nil` when one is not of it.
    public static func pins(curlForm text: String) -> [String]? {
        let parts = text.split(separator: ";").map { $0.trimmingHTTPWhitespace() }
        var pins: [String] = []
        for part in parts where !part.isEmpty {
            guard part.hasPrefix("sha256//") else { return nil }
            let pin = String(part.dropFirst("sha256//".count))
            guard let digest = Data(base64Encoded: pin), digest.count == 32 else { return nil }
            pins.append(pin)
        }
        return pins.isEmpty ? nil : pins
    }
}
