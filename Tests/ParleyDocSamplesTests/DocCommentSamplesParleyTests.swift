// swift-format-ignore-file
// Laid out line for line as the swift blocks of the doc comments it compiles (scripts/check-docs).
import Foundation
import Logging
import Metrics
import MetricsTestKit
import Parley
import ParleyAsyncHTTPClient
import Testing

// The Swift blocks of the `///` doc comments of Sources/Parley and Sources/ParleyAsyncHTTPClient. Each sample sits in
// a function of its own (or, for a sample that declares a type and nothing else, directly in the namespace); what
// a sample assumes (a `client`, a base URL `api`, an endpoint type) is declared before it, as the function's
// parameters or a type of the namespace, never in the sample. Most functions are only compiled; the tests at the end
// run the samples that need no server.
enum DocCommentSamplesParley {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
    }

    // Sources/Parley/Endpoint/Endpoint.swift
    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct GetBackup: Endpoint {
        typealias Response = Void
        var path: Path { "/backup" }
    }

    struct Notifications: Endpoint {
        typealias Response = Void
        var path: Path { "/events" }
    }

    struct FollowLog: Endpoint {
        typealias Response = Void
        var path: Path { "/log" }
    }

    struct StoredFile: Decodable, Sendable {
        let size: Int
    }

    struct PutAvatar: Endpoint {
        typealias Response = StoredFile
        var method: HTTPRequest.Method { .put }
        var path: Path { "/avatar" }
    }

    struct UploadPhoto: Endpoint {
        typealias Response = Void
        var method: HTTPRequest.Method { .post }
        var path: Path { "/photos" }
    }

    struct LogEvent: Decodable, Sendable {
        let message: String
    }

    struct OAuth: Sendable {
        func refresh(_ stale: AccessToken?) async throws -> AccessToken { AccessToken("new") }
    }

    // Sources/Parley/Cache/HTTPCache.swift
    static func sampleHTTPCache(cachesFolder: URL) {
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache()                                              // in memory, private
        configuration.cache = HTTPCache(store: DiskCacheStore(folder: cachesFolder))   // kept between runs
        _ = configuration
    }

    // Sources/Parley/Client/Client+Download.swift
    static func sampleDownload(client: Client) async throws {
        let download = client.download(GetBackup(), to: URL(filePath: "backup.tar"), resume: true)
        for await progress in download.progress { print(progress) }
        let file = try await download.value
        _ = file
    }

    // Sources/Parley/Client/Client+Events.swift
    static func sampleEvents(client: Client) async throws {
        for try await event in client.events(Notifications()) {
            print(event.type, event.data)
        }
    }

    // Sources/Parley/Client/Client+Stream.swift
    static func sampleStream(client: Client) async throws {
        let log = try await client.stream(FollowLog())
        for try await line in log.body.lines() { print(line) }
    }

    // Sources/Parley/Client/Client+Upload.swift
    static func sampleUploadFile(client: Client) async throws {
        let upload = client.upload(PutAvatar(), fromFile: URL(filePath: "avatar.png"), contentType: "image/png")
        for await progress in upload.progress { print(progress) }
        let stored = try await upload.value
        _ = stored
    }

    // Sources/Parley/Client/Client.swift
    static func sampleClient(url: URL, transport: any ClientTransport) async throws {
        let client = Client(baseURL: url, transport: transport, headers: ["User-Agent": "my-app/1.0"])
        let user = try await client.send(GetUser(id: 1))
        _ = user
    }

    // Sources/Parley/Cookies/CookieJar.swift
    static func sampleCookieJar(api: URL) {
        let jar = CookieJar()
        var configuration = Client.Configuration()
        configuration.cookies = jar
        let client = Client(baseURL: api, configuration: configuration)
        _ = client
    }

    // Sources/Parley/Curl/CurlCommand.swift
    static func sampleCurlCommand() -> String {
        var request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/users")
        request.headerFields[.contentType] = "application/json"
        let command = CurlCommand(request, body: .data(Data(#"{"name":"Ada"}"#.utf8)))
        print(command)   // curl 'https://api.example.com/users' -H 'Content-Type: application/json' --data-binary '{"name":"Ada"}'
        return command.description
    }

    // Sources/Parley/Endpoint/ExplicitNull.swift
    struct InitializeParams: Codable, Sendable {
        @ExplicitNull var processId: Int?      // {"processId":null,…} when nil
        var rootUri: String?                   // left out when nil
    }

    // Sources/Parley/Endpoint/Query.swift
    static func sampleQuery() -> (Query, Query) {
        let page: Int? = nil
        let a: Query = ["q": "swift", "page": page.map(String.init)]   // ?q=swift
        let b: Query = [QueryItem("q", "swift"), QueryItem("verbose", nil)]   // ?q=swift&verbose
        return (a, b)
    }

    // Sources/Parley/Middleware/Auth/APIKeyMiddleware.swift
    static func sampleAPIKey(api: URL, key: String) {
        let client = Client(baseURL: api, middlewares: [.apiKey(key)])                        // X-API-Key: <key>
        let renamed = Client(baseURL: api, middlewares: [.apiKey(key, header: "Api-Token")])
        let inQuery = Client(baseURL: api, middlewares: [.apiKey(key, queryItem: "api_key")])  // …?api_key=<percent-encoded key>
        _ = (client, renamed, inQuery)
    }

    // Sources/Parley/Middleware/Auth/AccessToken.swift
    static func sampleAccessToken(body: Data) throws -> AccessToken {
        struct TokenResponse: Decodable { let access_token: String; let expires_in: Int? }
        let reply = try JSONDecoder().decode(TokenResponse.self, from: body)
        let token = AccessToken(reply.access_token, expiresIn: reply.expires_in.map { .seconds($0) })
        return token
    }

    // Sources/Parley/Middleware/Auth/AccessTokenProvider.swift
    static func sampleAccessTokenProvider(oauth: OAuth) {
        let provider = ClosureAccessTokenProvider { stale in
            try await oauth.refresh(stale)   // -> AccessToken
        }
        _ = provider
    }

    // Sources/Parley/Middleware/Auth/BasicAuthMiddleware.swift
    static func sampleBasicAuth(api: URL, secret: String) {
        let client = Client(baseURL: api, middlewares: [.basicAuth(username: "ada", password: secret)])
        _ = client
    }

    // Sources/Parley/Middleware/Auth/BearerAuthMiddleware.swift
    static func sampleBearerAuth(api: URL, myTokens: ClosureAccessTokenProvider) {
        let client = Client(baseURL: api, middlewares: [.bearerAuth(myTokens)])
        _ = client
    }

    // Sources/Parley/Middleware/Auth/OAuth/OAuthDiscovery.swift
    static func sampleOAuthDiscovery(baseURL: URL) async throws -> ([String], String) {
let discovery = OAuthDiscovery(using: Client(baseURL: baseURL))
let resource = try await discovery.protectedResource(baseURL.appending(path: "auth/write"))
let issuer = try await discovery.authorizationServer(resource.authorizationServers[0])
print(resource.scopesSupported ?? [], issuer.tokenEndpoint ?? "")   // ["read", "write"] http://…/auth/token
        return (resource.scopesSupported ?? [], issuer.tokenEndpoint ?? "")
    }

    // Sources/Parley/Middleware/Auth/SensitiveFields.swift
    static func sampleSensitiveFields() {
        var configuration = Client.Configuration()
        configuration.sensitiveFields = SensitiveFields().adding(headerFields: ["X-Session"], queryItems: ["otp"])
        _ = configuration
    }

    // Sources/Parley/Middleware/CallContext.swift
    struct LogAttempts: ClientMiddleware {
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            let attempt = CallContext.current?.attempt ?? 1
            print("\(operationID): attempt \(attempt)")
            return try await next(request, body, baseURL)
        }
    }

    // Sources/Parley/Middleware/CallOutcomeObserver.swift
    struct FailureCounter: ClientMiddleware, CallOutcomeObserver {
        let failures: Counter
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            try await next(request, body, baseURL)
        }
        func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) { failures.increment() }
    }

    // Sources/Parley/Middleware/Coalescing/RequestCoalescingMiddleware.swift
    static func sampleCoalescing(api: URL) async throws {
        let client = Client(baseURL: api, middlewares: [.coalescing()])
        async let a = client.send(GetUser(id: 1))
        async let b = client.send(GetUser(id: 1))   // no second request: the first one's answer
        _ = try await (a, b)
    }

    // Sources/Parley/Middleware/Compression/RequestCompressionMiddleware.swift
    static func sampleRequestCompression(api: URL) {
        let client = Client(baseURL: api, middlewares: [.compressingRequests(.gzip, minimumSize: 1024)])
        _ = client
    }

    // Sources/Parley/Middleware/Logging/LoggingMiddleware.swift
    static func sampleLogging(url: URL) {
        let client = Client(baseURL: url, middlewares: [.logging(Logger(label: "api"))])
        // info: GET https://api.example.com/users?api_key=<redacted> → 200 OK in 12.4 ms (attempt 1, sent 0 B, received 431 B)
        _ = client
    }

    // Sources/Parley/Middleware/Metrics/MetricsMiddleware.swift
    static func sampleMetrics(url: URL, backend: TestMetrics) {
        let client = Client(baseURL: url, middlewares: [.metrics()])                   // the global MetricsSystem
        let measured = Client(baseURL: url, middlewares: [.metrics(factory: backend, prefix: "shop.")])
        _ = (client, measured)
    }

    // Sources/Parley/Middleware/Retry/RetryMiddleware.swift
    static func sampleRetry(url: URL, transport: any ClientTransport) {
        let client = Client(baseURL: url, transport: transport, middlewares: [.retry(maxAttempts: 4)])
        _ = client
    }

    // Sources/Parley/Middleware/Tracing/TracingMiddleware.swift
    static func sampleTracing(url: URL) {
        let client = Client(baseURL: url, middlewares: [.tracing(), .retry()])   // InstrumentationSystem.tracer
        _ = client
    }

    // Sources/Parley/Proxy/ProxySettings.swift
    static func sampleProxySettings() {
        let settings = ProxySettings.environment()   // http_proxy, https_proxy, all_proxy, no_proxy
        let transport = ProxyingTransport(settings)   // on AsyncHTTPClient (ParleyAsyncHTTPClient)
        _ = transport
    }

    // Sources/Parley/Response/Endpoint+Decoders.swift
    struct Fetch<Response: Sendable>: Endpoint {
        var path: Path
        var decoder: DefaultResponseDecoder<Response> { .chosenAtRuntime }
    }

    // Sources/Parley/Response/ResponseDecoder.swift
    struct CSVDecoder: ResponseDecoder {
        func decode(_ response: ResponseBody) async throws -> [[String]] {
            let text = String(decoding: try await response.data(), as: UTF8.self)
            return text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        }
    }

    // Sources/Parley/Streaming/JSONLineSequence.swift
    static func sampleJSONLines(body: ByteStream) async throws {
        for try await event in body.jsonLines(of: LogEvent.self) { print(event.message) }
    }

    // Sources/Parley/Streaming/LineSequence.swift
    static func sampleLines(body: ByteStream) async throws {
        for try await line in body.lines() { print(line) }
    }

    // Sources/Parley/Multipart/MultipartForm.swift
    static func sampleMultipartForm(client: Client) throws {
        var form = MultipartForm()
        form.append("title", value: "Holiday")
        try form.append("photo", file: URL(filePath: "beach.jpg"), contentType: "image/jpeg")
        let upload = client.upload(UploadPhoto(), body: .multipart(form))
        _ = upload
    }

    // Sources/Parley/Streaming/ServerSentEventParser.swift
    static func sampleServerSentEventParser(body: ByteStream, handle: (ServerSentEvent) -> Void) async throws {
        var parser = ServerSentEventParser()
        for try await chunk in body {
            for event in try parser.parse(chunk) { handle(event) }
        }
        parser.finish()   // the connection ended: reconnect sending `Last-Event-ID: \(parser.lastEventID)`
    }

    // Sources/Parley/Transfers/Transfer.swift
    static func sampleTransfer(client: Client, avatarURL: URL) async throws {
        let upload = client.upload(PutAvatar(), fromFile: avatarURL)
        for await progress in upload.progress { print(progress.fractionCompleted ?? 0) }
        let stored = try await upload.value
        _ = stored
    }

    // Sources/Parley/TLS/TLSPolicy.swift
    static func sampleTLSPolicy(companyCA: URL, pem: Data, key: Data) throws {
        let policy = TLSPolicy(roots: [try Data(contentsOf: companyCA)], clientCertificate: .init(chain: pem, privateKey: key))
        let transport = try AsyncHTTPClientTransport(tls: policy)   // ParleyAsyncHTTPClient
        _ = transport
    }

    // Sources/Parley/Validation/StatusCodes.swift
    static func sampleStatusCodes() -> (StatusCodes, Bool) {
        let codes: StatusCodes = [200...299, 304...304]
        let ok = StatusCodes.successful.contains(204)   // true
        return (codes, ok)
    }

    // Sources/ParleyAsyncHTTPClient/ProxyingTransport.swift
    static func sampleProxyingTransport(api: URL) {
        let client = Client(baseURL: api, transport: ProxyingTransport(.environment()))   // as curl reads the environment
        let socks = Client(baseURL: api, transport: ProxyingTransport(ProxySettings(Proxy(.socks5, host: "127.0.0.1", port: 1080))))
        _ = (client, socks)
    }
}

/// Runs the doc-comment samples of Parley that need no server, and checks what their comments say.
@Suite struct DocCommentSamplesParleyTests {
    @Test func curlCommandPrintsWhatItsCommentSays() {
        #expect(
            DocCommentSamplesParley.sampleCurlCommand()
                == #"curl 'https://api.example.com/users' -H 'Content-Type: application/json' --data-binary '{"name":"Ada"}'"#
        )
    }

    @Test func queryAndStatusCodesAreWhatTheirCommentsSay() {
        let (a, b) = DocCommentSamplesParley.sampleQuery()
        #expect(a.items == [QueryItem("q", "swift")])
        #expect(b.items == [QueryItem("q", "swift"), QueryItem("verbose", nil)])
        let (codes, ok) = DocCommentSamplesParley.sampleStatusCodes()
        #expect(ok)
        #expect(codes.contains(304) && !codes.contains(301))
    }

    @Test func oauthDiscoveryOfTheDemoServer() async throws {
        try await withDocServer { baseURL, _ in
            let (scopes, tokenEndpoint) = try await DocCommentSamplesParley.sampleOAuthDiscovery(baseURL: baseURL)
            #expect(scopes == ["read", "write"])
            #expect(tokenEndpoint == baseURL.absoluteString + "/auth/token")
        }
    }

    @Test func accessTokenFromAnOAuthReply() throws {
        let token = try DocCommentSamplesParley.sampleAccessToken(body: Data(#"{"access_token":"t1","expires_in":60}"#.utf8))
        #expect(token.value == "t1")
        #expect(token.expiresAt != nil)
    }
}
