// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import AsyncHTTPClient
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/TLSAndProxies.md. Those that need a TLS server, PEM files or a proxy
// are compiled, not run (`compiledOnly`); the others run against the demo server, or need no server at all. The TLS
// peers' suites (TLSPeerTests, ProxyPeerTests) exercise the same calls against nginx, tinyproxy and a SOCKS5 proxy.
enum DocCTLSAndProxies {
/// The demo server's `/text`: "hello, parley".
struct Greeting: Endpoint {
    typealias Response = String
    var path: Path { "/text" }
}

    /// The article's blocks that need a server with TLS, PEM files or a proxy: compiled, never called.
    static func compiledOnly() async throws {
let baseURL = URL(string: "http://127.0.0.1:8080")!   // swift run parley demo --serve --port 8080
        _ = baseURL
let companyCA = try Data(contentsOf: URL(fileURLWithPath: "/etc/company/ca.pem"))
let clientChain = try Data(contentsOf: URL(fileURLWithPath: "/etc/company/client.pem"))
let clientKey = try Data(contentsOf: URL(fileURLWithPath: "/etc/company/client.key"))

let companyPolicy = TLSPolicy(
    roots: [companyCA],
    trustsSystemRoots: false,   // only servers the company's CA signed
    clientCertificate: TLSPolicy.ClientCertificate(chain: clientChain, privateKey: clientKey),
    minimumVersion: .tls13
)
let internalAPI = Client(
    baseURL: URL(string: "https://internal.example.com")!,
    transport: try AsyncHTTPClientTransport(tls: companyPolicy)
)
        try await internalAPI.shutdown()
let pins = TLSPolicy.pins(
    curlForm: "sha256//SLvQ+tRLoHnTTVG0SI/hIPTI9af5oXs8rx6VQ/LB8Pk=;sha256//CMCAWSJQH5nAQbZU5sp+cbvgr4HxFLmfG7t4cMa13XM="
) ?? []
print(pins.count)   // 2: the current key and a backup
let pinnedTransport = try AsyncHTTPClientTransport(tls: TLSPolicy(pinnedPublicKeys: pins))
let pinnedAPI = Client(baseURL: URL(string: "https://api.example.com")!, transport: pinnedTransport)
do {
    _ = try await pinnedAPI.send(Greeting())
} catch {
    print(error.serverPublicKeyPins ?? [])   // when the chain has no pinned key: its pins, leaf first
}
try await pinnedAPI.shutdown()   // also closes the pinned connections and removes their sockets
    }
}

extension DocCTLSAndProxies {
    @Suite("DocC: TLS and proxies", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a transport that verifies nothing, for a test server")
        func insecure() async throws {
let testServer = try AsyncHTTPClientTransport(tls: TLSPolicy(verifiesCertificates: false))   // curl's --insecure
try await testServer.shutdown()
            // The policy's HTTPClient configuration verifies no certificate (NIOSSL's `.none`)...
            let policy = try AsyncHTTPClientTransport.configuration(tls: TLSPolicy(verifiesCertificates: false))
            let verification = policy.tlsConfiguration?.certificateVerification
            if case .some(.none) = verification {} else { Issue.record("the transport verifies certificates: \(String(describing: verification))") }
            // ...so a transport made as the sample's connects to a server whose certificate no system root signed (nginx
            // with the suite's own CA, when scripts/start-peers runs it), where a transport that verifies fails.
            if let url = ProcessInfo.processInfo.environment["PARLEY_TLS_URL"].flatMap(URL.init(string:)) {
                let sameAsTheSample = try AsyncHTTPClientTransport(tls: TLSPolicy(verifiesCertificates: false))
                let unverified = Client(baseURL: url, transport: sameAsTheSample)
                do {
                    #expect(try await unverified.send(Greeting()) == #"{"protocol":"TLSv1.3"}"#)
                } catch {
                    Issue.record(error, "the transport that verifies nothing did not connect")
                }
                try await sameAsTheSample.shutdown()
                let verifying = Client(baseURL: url, transport: AsyncHTTPClientTransport())
                let refused = await #expect(throws: ParleyError.self) { try await verifying.send(Greeting()) }
                #expect(refused?.kind == .transport)
                try await verifying.shutdown()
            }
        }

        @Test("pins in curl's form; a pinned transport; pins refused by a configuration")
        func pins() async throws {
let pins = TLSPolicy.pins(
    curlForm: "sha256//SLvQ+tRLoHnTTVG0SI/hIPTI9af5oXs8rx6VQ/LB8Pk=;sha256//CMCAWSJQH5nAQbZU5sp+cbvgr4HxFLmfG7t4cMa13XM="
) ?? []
print(pins.count)   // 2: the current key and a backup
let pinnedTransport = try AsyncHTTPClientTransport(tls: TLSPolicy(pinnedPublicKeys: pins))
            #expect(pins == ["SLvQ+tRLoHnTTVG0SI/hIPTI9af5oXs8rx6VQ/LB8Pk=", "CMCAWSJQH5nAQbZU5sp+cbvgr4HxFLmfG7t4cMa13XM="])
            try await pinnedTransport.shutdown()
do {
    _ = try AsyncHTTPClientTransport.configuration(tls: TLSPolicy(pinnedPublicKeys: pins))
} catch {
    print(error.kind)   // invalidRequest: pins are checked only by AsyncHTTPClientTransport(tls:)
}
            let error = #expect(throws: ParleyError.self) {
                try AsyncHTTPClientTransport.configuration(tls: TLSPolicy(pinnedPublicKeys: pins))
            }
            #expect(error?.kind == .invalidRequest)
            var proxied = AsyncHTTPClientTransport.defaultConfiguration
            proxied.proxy = .server(host: "127.0.0.1", port: 3128)
            let refused = #expect(throws: ParleyError.self) {
                try AsyncHTTPClientTransport(configuration: proxied, tls: TLSPolicy(pinnedPublicKeys: pins))
            }
            #expect(refused?.kind == .invalidRequest)
        }

        @Test("proxy settings, no_proxy, the environment, and a TLS policy through a ProxyingTransport")
        func proxies() async throws {
            try await withDocServer { baseURL, _ in
let corporate = ProxySettings(
    http: Proxy(url: "http://proxy.internal:3128"),
    https: Proxy(url: "http://build-bot:s3cret@proxy.internal:3128"),
    noProxy: ["localhost", "127.0.0.1", ".internal", "10.0.0.0/8"]
)
print(corporate.https?.description ?? "")                                           // http://<redacted>@proxy.internal:3128
print(corporate.proxy(for: URL(string: "https://api.example.com")!)?.host ?? "direct")   // proxy.internal
print(corporate.proxy(for: baseURL)?.host ?? "direct")                               // direct

let viaProxy = Client(baseURL: baseURL, transport: ProxyingTransport(corporate))
print(try await viaProxy.send(Greeting()))   // hello, parley (127.0.0.1 goes direct)
try await viaProxy.shutdown()                // one HTTPClient per proxy, and one for direct requests
                #expect(corporate.https?.description == "http://<redacted>@proxy.internal:3128")
                #expect(corporate.proxy(for: URL(string: "https://api.example.com")!)?.host == "proxy.internal")
                #expect(corporate.proxy(for: baseURL) == nil)
let fromEnvironment = ProxySettings.environment(["https_proxy": "socks5://127.0.0.1:1080", "no_proxy": "localhost"])
print(fromEnvironment.https?.kind == .socks5, fromEnvironment.bypasses(host: "localhost", port: 8080))   // true true
                #expect(fromEnvironment.https?.kind == .socks5)
                #expect(fromEnvironment.bypasses(host: "localhost", port: 8080))
let tlsThroughProxy = try AsyncHTTPClientTransport.configuration(
    AsyncHTTPClientTransport.configuration(connectTimeout: .seconds(5), readTimeout: .seconds(30)),
    tls: TLSPolicy(minimumVersion: .tls13)
)
let secured = Client(baseURL: baseURL, transport: ProxyingTransport(corporate, configuration: tlsThroughProxy))
print(try await secured.send(Greeting()))   // hello, parley
try await secured.shutdown()
                let check = Client(baseURL: baseURL, transport: ProxyingTransport(corporate, configuration: tlsThroughProxy))
                #expect(try await check.send(Greeting()) == "hello, parley")
                try await check.shutdown()
            }
        }
    }
}
