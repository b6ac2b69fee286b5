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
    static let folder = environment["PARLEY_TLS_DIR"]

    static func pem(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try #require(folder) + "/" + name))
    }
}

private struct Root: Endpoint {
    typealias Response = JSONValue
    var path: Path = "/"
}

@Suite(
    "Independent peer: TLS policy against nginx (roots, mutual TLS, minimum version)",
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

    @Test("no verification connects to any server; pins are refused on AsyncHTTPClient, which cannot check them")
    func unverifiedAndPins() async throws {
        let insecure = try client(TLSPeer.url, TLSPolicy(verifiesCertificates: false))
        #expect(try await insecure.send(Root()) == ["protocol": "TLSv1.3"])
        try await insecure.shutdown()
        let pins = try #require(TLSPolicy.pins(curlForm: "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()))
        #expect(throws: ParleyError.self) { try AsyncHTTPClientTransport(tls: TLSPolicy(pinnedPublicKeys: pins)) }
        #expect(TLSPolicy.pins(curlForm: "sha256//short") == nil)
        #expect(TLSPolicy.pins(curlForm: "md5//x") == nil)
    }

    @Test("URLSession on Linux trusts the system's roots only: the suite's CA is unknown to it")
    func urlSession() async throws {
        let client = Client(baseURL: try #require(TLSPeer.url), transport: TransportKind.urlSession.makeTransport())
        await expectParleyError(.transport) { _ = try await client.send(Root()) }
        try await client.shutdown()
    }
}
