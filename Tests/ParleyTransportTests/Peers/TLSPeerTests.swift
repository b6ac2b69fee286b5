import Foundation
import Parley
import ParleyAsyncHTTPClient
import Testing

@testable import ParleyTestSupport

/// nginx with TLS and the certificates `scripts/start-peers` made with openssl (a CA of its own, a server and a client
/// certificate).
enum TLSPeer {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["PARLEY_TLS_URL"].flatMap(URL.init(string:))
    static let mutualURL = environment["PARLEY_MTLS_URL"].flatMap(URL.init(string:))
    static let tls12URL = environment["PARLEY_TLS12_URL"].flatMap(URL.init(string:))
    /// A certificate for 127.0.0.1 from the suite's CA, for client authentication only.
    static let clientOnlyURL = environment["PARLEY_TLS_CLIENTONLY_URL"].flatMap(URL.init(string:))
    /// An attacker's self-signed certificate, followed by the suite's CA certificate.
    static let forgedURL = environment["PARLEY_TLS_FORGED_URL"].flatMap(URL.init(string:))
    /// The same server certificate over HTTP/2 (ALPN h2), answering its protocol.
    static let h2URL = environment["PARLEY_TLS_H2_URL"].flatMap(URL.init(string:))
    static let folder = environment["PARLEY_TLS_DIR"]
    /// The pins (curl's `sha256//` form without the prefix) that `scripts/start-peers` computed with openssl.
    static let leafPin = environment["PARLEY_TLS_LEAF_PIN"]
    static let caPin = environment["PARLEY_TLS_CA_PIN"]
    static let otherPin = environment["PARLEY_TLS_OTHER_PIN"]

    static func pem(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try #require(folder) + "/" + name))
    }
}

private struct Root: Endpoint {
    typealias Response = JSONValue
    var path: Path = "/"
}

private struct Probe: Endpoint {
    typealias Response = JSONValue
    var path: Path
}

@Suite(
    "Independent peer: TLS policy against nginx (roots, mutual TLS, minimum version, pins)",
    .enabled(if: TLSPeer.url != nil && TLSPeer.folder != nil, "scripts/start-peers starts nginx with TLS (apt, openssl)")
)
struct TLSPeerTests {
    private func client(_ url: URL?, _ policy: TLSPolicy) throws -> Client {
        Client(baseURL: try #require(url), transport: try AsyncHTTPClientTransport(tls: policy))
    }

    @Test("the system's roots do not know the suite's CA; adding it, or trusting only it, connects (TLS 1.3)")
    func roots() async throws {
        let system = try client(TLSPeer.url, TLSPolicy())
        let refused = await expectParleyError(.transport) { _ = try await system.send(Root()) }
        #expect(refused != nil)
        try await system.shutdown()
        let ca = try TLSPeer.pem("ca.pem")
        for policy in [TLSPolicy(roots: [ca]), TLSPolicy(roots: [ca], trustsSystemRoots: false)] {
            let trusted = try client(TLSPeer.url, policy)
            #expect(try await trusted.send(Root()) == ["protocol": "TLSv1.3"])
            try await trusted.shutdown()
        }
        let other = try client(TLSPeer.url, TLSPolicy(roots: [try TLSPeer.pem("other-ca.pem")], trustsSystemRoots: false))
        await expectParleyError(.transport) { _ = try await other.send(Root()) }
        try await other.shutdown()
    }

    @Test("mutual TLS: the client certificate is presented; without it the server refuses")
    func mutual() async throws {
        let ca = try TLSPeer.pem("ca.pem")
        let certificate = TLSPolicy.ClientCertificate(
            chain: try TLSPeer.pem("client.pem"),
            privateKey: try TLSPeer.pem("client.key")
        )
        let presenting = try client(TLSPeer.mutualURL, TLSPolicy(roots: [ca], clientCertificate: certificate))
        #expect(try await presenting.send(Root()) == ["client": "CN=parley-client"])
        try await presenting.shutdown()
        let anonymous = try client(TLSPeer.mutualURL, TLSPolicy(roots: [ca]))
        let error = await expectParleyError(.unacceptableStatus) { _ = try await anonymous.send(Root()) }
        #expect(error?.status?.code == 400, "nginx: No required SSL certificate was sent")
        try await anonymous.shutdown()
    }

    @Test("a minimum of TLS 1.3 refuses a server that speaks 1.2 only; 1.2 connects")
    func minimumVersion() async throws {
        let ca = try TLSPeer.pem("ca.pem")
        let strict = try client(TLSPeer.tls12URL, TLSPolicy(roots: [ca], minimumVersion: .tls13))
        await expectParleyError(.transport) { _ = try await strict.send(Root()) }
        try await strict.shutdown()
        let lenient = try client(TLSPeer.tls12URL, TLSPolicy(roots: [ca], minimumVersion: .tls12))
        #expect(try await lenient.send(Root()) == ["protocol": "TLSv1.2"])
        try await lenient.shutdown()
    }

    @Test("no verification connects to any server")
    func unverified() async throws {
        let insecure = try client(TLSPeer.url, TLSPolicy(verifiesCertificates: false))
        #expect(try await insecure.send(Root()) == ["protocol": "TLSv1.3"])
        try await insecure.shutdown()
        #expect(TLSPolicy.pins(curlForm: "sha256//short") == nil)
        #expect(TLSPolicy.pins(curlForm: "md5//x") == nil)
    }

    @Test("a pin of the server's key, or of its CA's (never sent by nginx), or a backup pin beside a wrong one, connects")
    func pinsThatMatch() async throws {
        let ca = try TLSPeer.pem("ca.pem")
        let leaf = try #require(TLSPeer.leafPin)
        let root = try #require(TLSPeer.caPin)
        let wrong = try #require(TLSPeer.otherPin)
        for pins in [[leaf], [root], [wrong, leaf], [wrong, root]] {
            let pinned = try client(TLSPeer.url, TLSPolicy(roots: [ca], pinnedPublicKeys: pins))
            // Twice: the second request reuses the relayed connection (kept alive), as AsyncHTTPClient pools it.
            #expect(try await pinned.send(Root()) == ["protocol": "TLSv1.3"], "pins \(pins)")
            #expect(try await pinned.send(Root()) == ["protocol": "TLSv1.3"], "pins \(pins)")
            try await pinned.shutdown()
        }
        // Many at once: each of AsyncHTTPClient's connections to the relay's socket is a TLS connection of its own.
        let busy = try client(TLSPeer.url, TLSPolicy(roots: [ca], pinnedPublicKeys: [leaf]))
        let answers = try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<24 { group.addTask { try await busy.send(Root()) } }
            return try await group.reduce(into: [JSONValue]()) { $0.append($1) }
        }
        #expect(answers.count == 24 && answers.allSatisfy { $0 == ["protocol": "TLSv1.3"] })
        try await busy.shutdown()
        // With no verification, the pin is the only check, as with curl's --insecure --pinnedpubkey.
        let unverified = try client(TLSPeer.url, TLSPolicy(verifiesCertificates: false, pinnedPublicKeys: [leaf]))
        #expect(try await unverified.send(Root()) == ["protocol": "TLSv1.3"])
        try await unverified.shutdown()
    }

    @Test("no pinned key in the chain: a transport error that lists the chain's pins, leaf first, and sends nothing")
    func pinFailure() async throws {
        let ca = try TLSPeer.pem("ca.pem")
        let wrong = try #require(TLSPeer.otherPin)
        let probe = Probe(path: Path("/pin-probe-\(UUID().uuidString)"))
        let pinned = try client(TLSPeer.url, TLSPolicy(roots: [ca], pinnedPublicKeys: [wrong]))
        let error = try #require(await expectParleyError(.transport) { _ = try await pinned.send(probe) })
        #expect(error.serverPublicKeyPins == [try #require(TLSPeer.leafPin), try #require(TLSPeer.caPin)])
        #expect(error.message.contains("sha256//\(try #require(TLSPeer.leafPin))"), "\(error.message)")
        #expect(error.message.contains("no pinned public key"), "\(error.message)")
        try await pinned.shutdown()
        // Nothing reached nginx: it logs a request before it reads the next on the connection, so once a second
        // request on one connection has its answer, the first is in the log; the refused probe never is.
        let trusted = try client(TLSPeer.url, TLSPolicy(roots: [ca]))
        let marker = Probe(path: Path("/pin-marker-\(UUID().uuidString)"))
        _ = try await trusted.send(marker)
        _ = try await trusted.send(Root())
        try await trusted.shutdown()
        let log = try String(contentsOfFile: try #require(TLSPeer.folder) + "/access.log", encoding: .utf8)
        #expect(log.contains(marker.path.description))
        #expect(!log.contains(probe.path.description), "the refused request reached nginx")
        // Unverified, the chain is what the server presented: the leaf alone.
        let unverified = try client(TLSPeer.url, TLSPolicy(verifiesCertificates: false, pinnedPublicKeys: [wrong]))
        let presented = await expectParleyError(.transport) { _ = try await unverified.send(Root()) }
        #expect(presented?.serverPublicKeyPins == [try #require(TLSPeer.leafPin)])
        try await unverified.shutdown()
    }

    @Test("pinned connections still verify the chain: the right pin with an untrusted CA fails, saying why")
    func pinsDoNotReplaceVerification() async throws {
        let leaf = try #require(TLSPeer.leafPin)
        let untrusted = try client(TLSPeer.url, TLSPolicy(pinnedPublicKeys: [leaf]))
        let error = await expectParleyError(.transport) { _ = try await untrusted.send(Root()) }
        #expect(error?.message.contains("is not trusted") == true, "\(String(describing: error?.message))")
        #expect(error?.serverPublicKeyPins == nil)
        try await untrusted.shutdown()
        // Mutual TLS and the minimum version hold on pinned connections too.
        let ca = try TLSPeer.pem("ca.pem")
        let certificate = TLSPolicy.ClientCertificate(
            chain: try TLSPeer.pem("client.pem"),
            privateKey: try TLSPeer.pem("client.key")
        )
        let mutual = try client(
            TLSPeer.mutualURL,
            TLSPolicy(roots: [ca], clientCertificate: certificate, pinnedPublicKeys: [leaf])
        )
        #expect(try await mutual.send(Root()) == ["client": "CN=parley-client"])
        try await mutual.shutdown()
        let strict = try client(TLSPeer.tls12URL, TLSPolicy(roots: [ca], minimumVersion: .tls13, pinnedPublicKeys: [leaf]))
        await expectParleyError(.transport) { _ = try await strict.send(Root()) }
        try await strict.shutdown()
    }

    @Test("a chain nothing vouches for cannot borrow a pin: unverified, only the leaf's key counts")
    func forgedChain() async throws {
        let caPin = try #require(TLSPeer.caPin)
        // The attacker's server presents its own leaf, then the real CA's certificate (public, so anyone can).
        let unverified = try client(TLSPeer.forgedURL, TLSPolicy(verifiesCertificates: false, pinnedPublicKeys: [caPin]))
        let error = await expectParleyError(.transport) { _ = try await unverified.send(Root()) }
        #expect(error?.serverPublicKeyPins?.count == 1, "only the leaf is listed: \(String(describing: error?.message))")
        #expect(error?.serverPublicKeyPins?.contains(caPin) == false)
        try await unverified.shutdown()
        // Verified, the forged leaf has no path to the CA.
        let verified = try client(TLSPeer.forgedURL, TLSPolicy(roots: [try TLSPeer.pem("ca.pem")], pinnedPublicKeys: [caPin]))
        let untrusted = await expectParleyError(.transport) { _ = try await verified.send(Root()) }
        #expect(untrusted?.message.contains("not trusted") == true, "\(String(describing: untrusted?.message))")
        try await verified.shutdown()
    }

    @Test("a certificate for client authentication only is not trusted for a server, pinned or not")
    func clientOnlyCertificate() async throws {
        let ca = try TLSPeer.pem("ca.pem")
        let pinned = try client(TLSPeer.clientOnlyURL, TLSPolicy(roots: [ca], pinnedPublicKeys: [try #require(TLSPeer.caPin)]))
        let error = await expectParleyError(.transport) { _ = try await pinned.send(Root()) }
        #expect(error?.message.contains("server authentication") == true, "\(String(describing: error?.message))")
        try await pinned.shutdown()
        let plain = try client(TLSPeer.clientOnlyURL, TLSPolicy(roots: [ca]))
        await expectParleyError(.transport) { _ = try await plain.send(Root()) }
        try await plain.shutdown()
    }

    @Test("a pin that is not a SHA-256 digest is refused; a configuration with pins is refused for clients Parley does not make")
    func badPins() throws {
        #expect(throws: ParleyError.self) { try AsyncHTTPClientTransport(tls: TLSPolicy(pinnedPublicKeys: ["c2hvcnQ="])) }
        let pin = Data(repeating: 7, count: 32).base64EncodedString()
        #expect(throws: ParleyError.self) { try AsyncHTTPClientTransport.configuration(tls: TLSPolicy(pinnedPublicKeys: [pin])) }
        // Pins and a proxy in the configuration: refused, not sent around the pins.
        var proxied = AsyncHTTPClientTransport.defaultConfiguration
        proxied.proxy = .server(host: "127.0.0.1", port: 3128)
        #expect(throws: ParleyError.self) {
            try AsyncHTTPClientTransport(configuration: proxied, tls: TLSPolicy(pinnedPublicKeys: [pin]))
        }
    }

    @Test("URLSession on Linux trusts the system's roots only: the suite's CA is unknown to it")
    func urlSession() async throws {
        let client = Client(baseURL: try #require(TLSPeer.url), transport: TransportKind.urlSession.makeTransport())
        await expectParleyError(.transport) { _ = try await client.send(Root()) }
        try await client.shutdown()
    }
}
