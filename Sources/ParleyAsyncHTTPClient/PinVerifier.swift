import Crypto
import NIOCore
import NIOSSL
import Parley
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks a server's certificate chain for a ``PinnedTLSRelay`` connection, in place of BoringSSL (a custom
/// verification callback replaces all of BoringSSL's checks): the chain must lead to a trusted root and name the
/// server (swift-certificates' `Verifier`, RFC 5280 and the server's identity), unless the policy verifies nothing;
/// then one certificate of it, leaf to root, must have a public key whose SHA-256 is pinned.
struct PinVerifier: Sendable {
    /// The pins, as raw SHA-256 digests of a SubjectPublicKeyInfo.
    let pins: Set<Data>
    /// The roots chains must lead to; `nil` when nothing is verified but the pins.
    let roots: CertificateStore?

    init(policy: TLSPolicy, roots parsed: [NIOSSLCertificate]) throws(ParleyError) {
        pins = Set(policy.pinnedPublicKeys.compactMap { Data(base64Encoded: $0) })
        guard policy.verifiesCertificates else {
            roots = nil
            return
        }
        var own: [Certificate] = []
        for root in parsed {
            do {
                own.append(try Certificate(derEncoded: try root.toDERBytes()))
            } catch {
                throw ParleyError(.invalidRequest, "A root certificate of the TLS policy could not be read: \(error).")
            }
        }
        roots = policy.trustsSystemRoots ? CertificateStore.systemTrustRoots.appending(contentsOf: own) : CertificateStore(own)
    }

    /// The pin of `certificate`: the SHA-256 of its SubjectPublicKeyInfo, in DER.
    static func pin(of certificate: NIOSSLCertificate) throws -> Data {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes()))
    }

    /// Whether `presented` (leaf first, as the server sent it) may be trusted for `origin`; `nil` when it may,
    /// otherwise the error that says why not.
    func check(_ presented: [NIOSSLCertificate], origin: PinnedTLSRelay.Origin) async -> ParleyError? {
        guard !presented.isEmpty else {
            return ParleyError(.transport, "The server \(origin) presented no certificate; the connection was closed.")
        }
        var chain = presented
        if let roots {
            let parsed: [Certificate]
            do {
                parsed = try presented.map { try Certificate(derEncoded: try $0.toDERBytes()) }
            } catch {
                return ParleyError(
                    .transport,
                    "The server \(origin) presented a certificate that could not be read (\(error)); the connection was closed."
                )
            }
            var verifier = Verifier(rootCertificates: roots) {
                RFC5280Policy()
                ServerAuthenticationPolicy()
                ServerIdentityPolicy(
                    serverHostname: origin.isIPAddress ? nil : origin.host,
                    serverIP: origin.isIPAddress ? origin.host : nil
                )
            }
            let result = await verifier.validate(leaf: parsed[0], intermediates: CertificateStore(parsed.dropFirst()))
            switch result {
            case .validCertificate(let validated):
                // The validated chain, leaf to the trusted root: a pin may name the root's key, which servers seldom send.
                do {
                    chain = try validated.map { try NIOSSLCertificate(bytes: try $0.serializeAsPEM().derBytes, format: .der) }
                } catch {
                    return ParleyError(.transport, "The chain of the server \(origin) could not be read: \(error).")
                }
            case .couldNotValidate(let failures):
                let reasons = failures.prefix(3).map { "\($0.policyFailureReason)" }.joined(separator: "; ")
                return ParleyError(
                    .transport,
                    "The certificate of the server \(origin) is not trusted (\(reasons.isEmpty ? "no path to a trusted root" : reasons)); "
                        + "the connection was closed before anything was sent. Trust its CA with a TLSPolicy (roots:), or "
                        + "`parley --verify CA_FILE`."
                )
            }
        }
        if roots == nil {
            // Nothing vouches for the certificates after the leaf: an attacker's leaf followed by the real (public)
            // pinned certificate would match. Unverified, only the leaf's key counts, as with curl.
            chain = [presented[0]]
        }
        var listed: [(subject: String, pin: String)] = []
        for certificate in chain {
            guard let pin = try? Self.pin(of: certificate) else { continue }
            if pins.contains(pin) { return nil }
            listed.append((Self.subject(of: certificate), pin.base64EncodedString()))
        }
        var error = ParleyError(
            .transport,
            "The server \(origin) presented no pinned public key: its chain's pins, leaf first, are "
                + listed.map { "sha256//\($0.pin) (\($0.subject))" }.joined(separator: ", ")
                + ". The connection was closed before anything was sent. If the server changed its key on purpose, pin "
                + "the new one (keep a backup pin for the next change)."
        )
        error.serverPublicKeyPins = listed.map(\.pin)
        return error
    }

    /// The certificate's subject as swift-certificates writes it (`CN=example.com`), or `?` when it cannot be read.
    private static func subject(of certificate: NIOSSLCertificate) -> String {
        guard let bytes = try? certificate.toDERBytes(), let parsed = try? Certificate(derEncoded: bytes) else { return "?" }
        return String(describing: parsed.subject)
    }
}

/// A leaf that limits its extended key usage must allow server authentication, as BoringSSL requires of a server
/// (swift-certificates' RFC 5280 policy does not look at it): a client-only certificate from a trusted CA is refused.
struct ServerAuthenticationPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.extendedKeyUsage]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard let leaf = chain.first else { return .meetsPolicy }
        let usage: ExtendedKeyUsage?
        do {
            usage = try leaf.extensions.extendedKeyUsage
        } catch {
            return .failsToMeetPolicy(reason: "the leaf's extended key usage cannot be read: \(error)")
        }
        guard let usage else { return .meetsPolicy }
        if usage.contains(.serverAuth) || usage.contains(.any) { return .meetsPolicy }
        return .failsToMeetPolicy(reason: "the leaf's extended key usage does not allow server authentication")
    }
}
