import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient

/// How `parley` connects: TLS (`--verify`, `--cert`, `--cert-key`, `--pinned-pubkey`) and proxies (`--proxy`, else the
/// environment's), shared by every command that speaks HTTP.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Trust the CA certificates (PEM) of this file instead of the system's, or 'no' to verify nothing (a test "
                + "server only).",
            valueName: "ca-file|no"
        )
    )
    var verify: String?

    @Option(help: ArgumentHelp("Present this client certificate (PEM; the key too unless --cert-key).", valueName: "file"))
    var cert: String?

    @Option(name: .customLong("cert-key"), help: ArgumentHelp("The private key (PEM) of --cert.", valueName: "file"))
    var certKey: String?

    @Option(
        name: .customLong("pinned-pubkey"),
        help: ArgumentHelp(
            "Accept only servers whose chain (leaf to trusted root) holds one of these public keys: "
                + "sha256//BASE64[;sha256//BASE64…] (curl's form). Not through a proxy.",
            valueName: "hashes"
        )
    )
    var pinnedPubkey: String?

    @Option(
        help: ArgumentHelp(
            "Send through this proxy: http://[user:password@]host:port or socks5://host:port. Without it, the proxies of "
                + "the environment apply as curl reads them (http_proxy, https_proxy, all_proxy, no_proxy).",
            valueName: "url"
        )
    )
    var proxy: String?

    /// Whether any of these options is given (the environment's proxies aside).
    var isGiven: Bool { verify != nil || cert != nil || pinnedPubkey != nil || proxy != nil }

    func validate() throws {
        if let pinnedPubkey, TLSPolicy.pins(curlForm: pinnedPubkey) == nil {
            throw ValidationError("--pinned-pubkey takes sha256//BASE64 (a SHA-256 hash), several joined with ';'.")
        }
        if certKey != nil, cert == nil { throw ValidationError("--cert-key goes with --cert.") }
        if let proxy, Proxy(url: proxy) == nil {
            throw ValidationError("--proxy takes http://[user:password@]host:port or socks5://host:port.")
        }
    }

    /// The TLS policy of `--verify`, `--cert`, `--cert-key` and `--pinned-pubkey`; `nil` when none is given.
    func tlsPolicy() throws -> TLSPolicy? {
        guard verify != nil || cert != nil || pinnedPubkey != nil else { return nil }
        var policy = TLSPolicy()
        func read(_ path: String, _ what: String) throws -> Data {
            do {
                return try Data(contentsOf: URL(fileURLWithPath: (path as NSString).expandingTildeInPath))
            } catch {
                throw ParleyError(.invalidRequest, "The \(what) file \(path) could not be read: \(error.localizedDescription)")
            }
        }
        switch verify?.lowercased() {
        case nil, "yes", "true": break
        case "no", "false": policy.verifiesCertificates = false
        default:
            policy.roots = [try read(verify ?? "", "--verify CA")]
            policy.trustsSystemRoots = false
        }
        if let cert {
            let chain = try read(cert, "--cert")
            policy.clientCertificate = .init(chain: chain, privateKey: try certKey.map { try read($0, "--cert-key") } ?? chain)
        }
        if let pinnedPubkey { policy.pinnedPublicKeys = TLSPolicy.pins(curlForm: pinnedPubkey) ?? [] }
        return policy
    }

    /// The proxies: `--proxy` for every request, else those of the environment (curl's variables).
    var proxies: ProxySettings {
        if let proxy, let parsed = Proxy(url: proxy) { return ProxySettings(parsed) }
        return .environment()
    }

    /// The transport these options call for: the process-wide one when none is given; else a client of its own (TLS),
    /// or one per proxy. Shut it down when done (`Client.shutdown()`).
    func transport() throws(ParleyError) -> any ClientTransport {
        let proxies = self.proxies
        let tls: TLSPolicy?
        do {
            tls = try tlsPolicy()
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError(.invalidRequest, "\(error)")
        }
        // Pins: the transport makes its https connections itself, to check them (not through a proxy).
        if let tls, !tls.pinnedPublicKeys.isEmpty, proxies.isEmpty { return try AsyncHTTPClientTransport(tls: tls) }
        let base = try tls.map { policy throws(ParleyError) in try AsyncHTTPClientTransport.configuration(tls: policy) }
        if !proxies.isEmpty {
            return ProxyingTransport(proxies, configuration: base ?? AsyncHTTPClientTransport.defaultConfiguration)
        }
        if let base { return AsyncHTTPClientTransport(configuration: base) }
        return AsyncHTTPClientTransport.shared
    }
}
