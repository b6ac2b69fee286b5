// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import AsyncHTTPClient
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyURLSession
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/Transports.md, compiled and run against the demo server (the
// OpenAPI transport's block is in DocCTransportsOpenAPITests.swift: its module's transport type has the same name).
enum DocCTransports {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    /// The article's declarations of a TLS server's files and of a daemon's socket: compiled, not run (the suite
    /// takes nginx's from scripts/start-peers; the daemon's call is compiled only, by `unixSocketCall`).
    static func declarationsOfTheArticle() throws {
        struct WhoAmIOverTLS: Endpoint {   // this server answers with the subject of the client's certificate
            struct Answer: Decodable, Sendable { let client: String }
            typealias Response = Answer
            var path: Path { "/" }
        }

let internalURL = URL(string: "https://internal.example.com")!
let certificates = URL(filePath: "/etc/my-app/tls")
let companyCA = try Data(contentsOf: certificates.appending(path: "ca.pem"))   // your CA's certificate
let clientPEM = try Data(contentsOf: certificates.appending(path: "client.pem"))
let clientKeyPEM = try Data(contentsOf: certificates.appending(path: "client.key"))
        _ = (WhoAmIOverTLS(), internalURL, companyCA, clientPEM, clientKeyPEM)

struct ProtocolOverTLS: Endpoint {   // this server answers with the TLS version: {"protocol": "TLSv1.3"}
    typealias Response = JSONValue
    var path: Path { "/" }
}

let pinnedURL = URL(string: "https://api.example.com")!
let currentKeyPin = "UHB9BwOZQ7FOyRaKeGIBZFx/Z8ZoWgtuUAx7F0MIKuU="   // the server's key
let backupKeyPin = "5bbGQo64Gxl5gldfOlZuWw3VofY+fpQ1FiMDg8ZgUUI="    // the key that will replace it
        _ = (ProtocolOverTLS(), pinnedURL, currentKeyPin, backupKeyPin)

struct SocketInfo: Decodable, Sendable {
    let path: String
}

struct SocketInfoEndpoint: Endpoint {   // this daemon answers with the path it was asked
    typealias Response = SocketInfo
    var path: Path { "/v1.43/info" }
}

let socketPath = "/var/run/daemon.sock"
        _ = (SocketInfoEndpoint(), socketPath)
    }

    struct SocketInfo: Decodable, Sendable {
        let path: String
    }

    struct SocketInfoEndpoint: Endpoint {   // this daemon answers with the path it was asked
        typealias Response = SocketInfo
        var path: Path { "/v1.43/info" }
    }

    /// The article's call to a daemon on a Unix domain socket: compiled, not run (this target has no Unix socket
    /// server; the suite "Unix domain sockets as base URLs" of ParleyTransportTests runs the same call against one).
    static func unixSocketCall(socketPath: String) async throws {
let host = socketPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socketPath
if let socketURL = URL(string: "http+unix://\(host)") {
    let daemon = Client(baseURL: socketURL)
    print(try await daemon.send(SocketInfoEndpoint()).path)   // /v1.43/info
}
    }
}

extension DocCTransports {
    @Suite("DocC: Transports", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("AsyncHTTPClient with its own configuration, with an injected HTTPClient, and URLSession")
        func transports() async throws {
            try await withDocServer { baseURL, _ in
                let transport = AsyncHTTPClientTransport(
                    configuration: AsyncHTTPClientTransport.configuration(connectTimeout: .seconds(5), readTimeout: .seconds(30))
                )
                let client = Client(baseURL: baseURL, transport: transport)
                let user = try await client.send(GetUser(id: 1))
                try await client.shutdown()
                #expect(user.name == "Ada Lovelace")
                #expect(transport.ownsClient)

                let httpClient = HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration)
                let pooled = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(client: httpClient))
                _ = try await pooled.send(GetUser(id: 1))
                try await httpClient.shutdown()
                #expect(!AsyncHTTPClientTransport(client: httpClient).ownsClient)

                let sessions = Client(baseURL: baseURL, transport: URLSessionTransport())
                let shared = Client(baseURL: baseURL, transport: URLSessionTransport(session: .shared))
                print(try await sessions.send(GetUser(id: 1)).name, try await shared.send(GetUser(id: 2)).name)
                try await sessions.shutdown()
                #expect(try await sessions.send(GetUser(id: 2)).name == "Alan Turing")
            }
        }

        @Test(
            "a TLS policy: the suite's CA, a client certificate, TLS 1.3 (nginx)",
            .enabled(if: ProcessInfo.processInfo.environment["PARLEY_MTLS_URL"] != nil, "scripts/start-peers starts nginx with TLS")
        )
        func tlsPolicy() async throws {
            struct WhoAmIOverTLS: Endpoint {
                struct Answer: Decodable, Sendable { let client: String }
                typealias Response = Answer
                var path: Path = "/"
            }
            let environment = ProcessInfo.processInfo.environment
            let folder = try #require(environment["PARLEY_TLS_DIR"])
            let internalURL = try #require(environment["PARLEY_MTLS_URL"].flatMap(URL.init(string:)))
            let companyCA = try Data(contentsOf: URL(fileURLWithPath: folder + "/ca.pem"))
            let clientPEM = try Data(contentsOf: URL(fileURLWithPath: folder + "/client.pem"))
            let clientKeyPEM = try Data(contentsOf: URL(fileURLWithPath: folder + "/client.key"))
let policy = TLSPolicy(
    roots: [companyCA],                               // PEM
    clientCertificate: TLSPolicy.ClientCertificate(chain: clientPEM, privateKey: clientKeyPEM),
    minimumVersion: .tls13
)
let internalAPI = Client(baseURL: internalURL, transport: try AsyncHTTPClientTransport(tls: policy))
print(try await internalAPI.send(WhoAmIOverTLS()).client)   // CN=parley-client
try await internalAPI.shutdown()
            let check = Client(baseURL: internalURL, transport: try AsyncHTTPClientTransport(tls: policy))
            #expect(try await check.send(WhoAmIOverTLS()).client == "CN=parley-client")
            try await check.shutdown()
        }

        @Test(
            "public-key pinning: a pin of another key fails and lists the server's pins (nginx)",
            .enabled(if: ProcessInfo.processInfo.environment["PARLEY_TLS_LEAF_PIN"] != nil, "scripts/start-peers starts nginx with TLS")
        )
        func pinning() async throws {
            struct ProtocolOverTLS: Endpoint {
                typealias Response = JSONValue
                var path: Path = "/"
            }
            let environment = ProcessInfo.processInfo.environment
            let folder = try #require(environment["PARLEY_TLS_DIR"])
            let pinnedURL = try #require(environment["PARLEY_TLS_URL"].flatMap(URL.init(string:)))
            let companyCA = try Data(contentsOf: URL(fileURLWithPath: folder + "/ca.pem"))
            // Neither is the server's: the sample's catch runs.
            let currentKeyPin = try #require(environment["PARLEY_TLS_OTHER_PIN"])
            let backupKeyPin = Data(repeating: 1, count: 32).base64EncodedString()
let pinnedPolicy = TLSPolicy(roots: [companyCA], pinnedPublicKeys: [currentKeyPin, backupKeyPin])
let pinnedAPI = Client(baseURL: pinnedURL, transport: try AsyncHTTPClientTransport(tls: pinnedPolicy))
do {
    _ = try await pinnedAPI.send(ProtocolOverTLS())
} catch {
    print(error.serverPublicKeyPins ?? [])   // when no pinned key: the server's chain's pins, leaf first
}
try await pinnedAPI.shutdown()   // also closes the pinned connections and removes their sockets
            let leaf = try #require(environment["PARLEY_TLS_LEAF_PIN"])
            let check = Client(
                baseURL: pinnedURL,
                transport: try AsyncHTTPClientTransport(tls: TLSPolicy(roots: [companyCA], pinnedPublicKeys: [backupKeyPin, leaf]))
            )
            #expect(try await check.send(ProtocolOverTLS()) == ["protocol": "TLSv1.3"])
            try await check.shutdown()
            let refused = Client(baseURL: pinnedURL, transport: try AsyncHTTPClientTransport(tls: pinnedPolicy))
            let error = await #expect(throws: ParleyError.self) { try await refused.send(ProtocolOverTLS()) }
            #expect(error?.serverPublicKeyPins?.first == leaf)
            try await refused.shutdown()
        }

        @Test("proxies from curl's variables; no_proxy")
        func proxies() async throws {
            try await withDocServer { baseURL, _ in
let proxies = ProxySettings.environment(["all_proxy": "socks5://127.0.0.1:1080", "no_proxy": "localhost,127.0.0.1"])
let viaProxies = Client(baseURL: baseURL, transport: ProxyingTransport(proxies))
print(proxies.proxy(for: baseURL)?.description ?? "direct")   // direct: 127.0.0.1 is in no_proxy
try await viaProxies.shutdown()   // its HTTPClients, one a proxy and one direct
                #expect(proxies.proxy(for: baseURL) == nil)
                #expect(proxies.all?.description == "socks5://127.0.0.1:1080")
            }
        }
    }
}
