import ArgumentParser
import Foundation
import Parley

/// The arguments and options shared by `parley get`, `head`, `post`, `put`, `patch` and `delete`.
struct HTTPOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The URL. Without a scheme, http:// is assumed; ':8080/path' is short for http://localhost:8080/path.",
            valueName: "url"
        )
    )
    var url: String

    @Argument(
        help: ArgumentHelp(
            "Request items: key=value, key:=json, key=@file, key:=@file, Header:value, Header:, Header;, name==value.",
            valueName: "item"
        )
    )
    var items: [String] = []

    @Flag(name: .shortAndLong, help: "Send key=value fields as an application/x-www-form-urlencoded body, not JSON.")
    var form = false

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Basic authentication, split at the first colon ('user:' for an empty password).",
            valueName: "user:password"
        )
    )
    var auth: String?

    @Option(help: ArgumentHelp("Send 'Authorization: Bearer TOKEN'.", valueName: "token"))
    var bearer: String?

    @Flag(
        name: .shortAndLong,
        help: "Print the request (head and body) and the response head on standard error; credentials are redacted."
    )
    var verbose = false

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
            "Keep cookies, credentials and custom header fields for this host between runs, as httpie does (a file "
                + "per host and name under ~/.config/parley/sessions, or the path given when NAME holds a /).",
            valueName: "name"
        )
    )
    var session: String?

    @Option(
        help: ArgumentHelp(
            "Send through this proxy: http://[user:password@]host:port or socks5://host:port. Without it, the proxies of "
                + "the environment apply as curl reads them (http_proxy, https_proxy, all_proxy, no_proxy).",
            valueName: "url"
        )
    )
    var proxy: String?

    @Flag(
        help: """
            Print the request as a curl command instead of sending it (after every header, credential and cookie is \
            added); secrets are written as shell variables ($AUTHORIZATION), named on standard error.
            """
    )
    var curl = false

    @Option(
        help: ArgumentHelp(
            "How to show the body: all (indented, coloured JSON), colors, format (indented, no colours) or none (the bytes "
                + "as received). Default: all on a terminal (format if NO_COLOR is set), none otherwise.",
            valueName: "mode"
        )
    )
    var pretty: HTTPPrettyMode?

    @Option(
        help: ArgumentHelp(
            "Give up after this many seconds (the whole call, body included); exit status 2.",
            valueName: "seconds"
        )
    )
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "Retry a failed attempt (connection error, timeout, 408, 429, 500, 502, 503, 504) up to N times.",
            valueName: "n"
        )
    )
    var retries = 0

    @Option(help: ArgumentHelp("Follow at most N redirects; 0 prints the redirect response itself.", valueName: "n"))
    var maxRedirects = 5

    func validate() throws {
        _ = try HTTPRequestItems(items.map(HTTPRequestItem.init(parsing:)), form: form)
        if auth != nil, bearer != nil { throw ValidationError("Give either --auth or --bearer, not both.") }
        if let auth, !auth.contains(":") {
            throw ValidationError("--auth takes user:password (write 'user:' for an empty password).")
        }
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be a number of seconds above 0 (at most a day).")
        }
        if retries < 0 || retries > 100 { throw ValidationError("--retries must be between 0 and 100.") }
        if maxRedirects < 0 || maxRedirects > 100 { throw ValidationError("--max-redirects must be between 0 and 100.") }
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

    /// The user and password of `--auth`, split at the first colon.
    var credentials: (user: String, password: String)? {
        guard let auth, let colon = auth.firstIndex(of: ":") else { return nil }
        return (String(auth[..<colon]), String(auth[auth.index(after: colon)...]))
    }

    /// The URL with httpie's shorthands expanded: `:8080/x` and `localhost/x` become `http://localhost:8080/x` and
    /// `http://localhost/x`.
    var absoluteURL: String {
        if url.hasPrefix(":/") || url == ":" { return "http://localhost" + url.dropFirst() }
        if url.hasPrefix(":") { return "http://localhost" + url }
        return url.contains("://") ? url : "http://" + url
    }
}
