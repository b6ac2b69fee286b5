import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOSSL
import Testing

@testable import ParleyTestSupport

/// Issue 34, item 3, the spike: can a public-key pin be checked in AsyncHTTPClient's connection initializers (they run
/// after the TLS handshake and before the connection enters the pool) instead of through Parley's `PinnedTLSRelay`?
/// Against nginx with the suite's certificates, over HTTP/1.1 and HTTP/2. What it shows is written in the TLS article
/// ("Pinning: why the relay stays"): a leaf pin works there, a pin on the CA cannot be checked there.
@Suite(
    "Spike: pins checked in AsyncHTTPClient's connection initializers (what they can and cannot see)",
    .enabled(
        if: TLSPeer.url != nil && TLSPeer.h2URL != nil && TLSPeer.leafPin != nil && TLSPeer.caPin != nil,
        "scripts/start-peers starts nginx with TLS (apt, openssl)"
    ),
    .timeLimit(.minutes(1))
)
struct InitializerPinningSpikeTests {
    /// What the initializer fails a connection with.
    struct PinRefused: Error {
        let presented: [String]
    }

    /// An `HTTPClient` trusting the suite's CA, whose connection initializers accept a connection only when a
    /// certificate the initializer can see has a pinned key, and record what they saw.
    static func client(pins: Set<String>, http2: Bool, seen: LockedBox<[[String]]>) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(try #require(TLSPeer.folder) + "/ca.pem"))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = http2 ? .automatic : .http1Only
        let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
            channel.pipeline.handler(type: NIOSSLHandler.self).flatMapThrowing { handler in
                // All the initializer can see: the leaf, and a validated chain only for a handler made with a custom
                // verification callback (AsyncHTTPClient's is not).
                var visible = handler.peerCertificate.map { [$0] } ?? []
                if let chain = handler.peerValidatedCertificateChain {
                    visible = chain.map { $0 }
                }
                let presented = try visible.map(Self.pin)
                seen.mutate { $0.append(presented) }
                guard presented.contains(where: pins.contains) else {
                    channel.close(promise: nil)
                    throw PinRefused(presented: presented)
                }
            }
        }
        configuration.http1_1ConnectionDebugInitializer = check
        configuration.http2ConnectionDebugInitializer = check
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    static func pin(_ certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    static func get(_ client: HTTPClient, _ url: URL?) async throws -> String {
        let response = try await client.execute(
            HTTPClientRequest(url: try #require(url).absoluteString + "/"),
            timeout: .seconds(10)
        )
        return String(buffer: try await response.body.collect(upTo: 1024))
    }

    @Test("a leaf pin: the right one connects over HTTP/1.1 and HTTP/2, a wrong one fails at once with its error")
    func leafPin() async throws {
        for (url, http2, answer) in [(TLSPeer.url, false, "TLSv1.3"), (TLSPeer.h2URL, true, "HTTP/2.0")] {
            let seen = LockedBox<[[String]]>([])
            let right = try Self.client(pins: [try #require(TLSPeer.leafPin)], http2: http2, seen: seen)
            try await shuttingDown(right.shutdown) { () async throws in
                #expect(try await Self.get(right, url).contains(answer))
            }
            let wrong = try Self.client(pins: [try #require(TLSPeer.otherPin)], http2: http2, seen: seen)
            try await shuttingDown(wrong.shutdown) { () async throws in
                let started = ContinuousClock.now
                await #expect(throws: PinRefused.self) { _ = try await Self.get(wrong, url) }
                #expect(ContinuousClock.now - started < .seconds(5), "not a connect retry until the 10 s deadline")
            }
        }
    }

    /// The blocker: the initializer sees the leaf only. A pin on the CA (or an intermediate), which `TLSPolicy`
    /// accepts and the relay checks against the validated chain, cannot be checked there.
    @Test("a CA pin cannot be checked there: the initializer sees only the leaf")
    func caPinInvisible() async throws {
        let seen = LockedBox<[[String]]>([])
        let client = try Self.client(pins: [try #require(TLSPeer.caPin)], http2: false, seen: seen)
        try await shuttingDown(client.shutdown) { () async throws in
            await #expect(throws: PinRefused.self) { _ = try await Self.get(client, TLSPeer.url) }
        }
        #expect(seen.value == [[try #require(TLSPeer.leafPin)]])
    }
}
