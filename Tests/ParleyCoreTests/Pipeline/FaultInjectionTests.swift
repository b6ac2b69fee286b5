import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Faults on the connection: refused, reset, closed in the middle of a body. Each case on both transports,
/// with the exact error kind and no connection left open afterwards.
@Suite("Fault injection: broken connections", .timeLimit(.minutes(1)))
struct FaultInjectionTests {
    @Test("connection refused fails with .transport", arguments: TransportKind.allCases)
    func connectionRefused(_ kind: TransportKind) async throws {
        let client = Client(
            baseURL: try #require(URL(string: try await FaultServer.unusedPortURL())),
            transport: makeFaultTransport(kind),
            configuration: Client.Configuration(timeout: .seconds(40))
        )
        await expectParleyError(.transport) { try await client.send(FaultCall<Data>(path: "/ok")) }
        try await client.shutdown()
    }

    @Test("a well-formed answer succeeds and its connection closes (control)", arguments: TransportKind.allCases)
    func control(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, server in
            let text = try await client.send(FaultCall<String>(path: "/ok"))
            #expect(text == "ok")
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test("an RST before any response byte fails with .transport", arguments: TransportKind.allCases)
    func resetBeforeHeaders(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, server in
            await expectParleyError(.transport) { try await client.send(FaultCall<Data>(path: "/reset")) }
        }
    }

    @Test("a close in the middle of a Content-Length body fails with .transport", arguments: TransportKind.allCases)
    func closeMidBody(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let error = await expectParleyError(.transport) {
                try await client.send(FaultCall<Data>(path: "/close-mid-body", query: ["length": "2000"]))
            }
            #expect(error?.status?.code == 200 || error?.status == nil, "\(String(describing: error))")
        }
    }

    @Test(
        "a close in the middle of a streamed Content-Length body fails the stream with .transport",
        arguments: TransportKind.allCases
    )
    func closeMidBodyStreamed(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let streamed = try await client.stream(FaultCall<Data>(path: "/close-mid-body", query: ["length": "2000"]))
            #expect(streamed.response.status == .ok)
            var received = 0
            await expectParleyError(.transport) {
                for try await chunk in streamed.body { received += chunk.count }
            }
            #expect(received <= 1000)
        }
    }

    /// Without Content-Length and not chunked, the body is delimited by the close (RFC 9112 §6.3 rule 8):
    /// the close completes the response, so the call succeeds with exactly the bytes sent.
    @Test("a close-delimited body is complete at the close (RFC 9112 §6.3)", arguments: TransportKind.allCases)
    func closeDelimitedBody(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let data = try await client.send(FaultCall<Data>(path: "/close-mid-body-no-length"))
            #expect(Array(data) == FaultServer.closeDelimitedBody)
        }
    }

    @Test("a close before the last chunk fails with .transport", arguments: TransportKind.allCases)
    func closeMidChunked(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            await expectParleyError(.transport) { try await client.send(FaultCall<Data>(path: "/close-mid-chunked")) }
        }
    }

    /// On Linux curl fails the transfer with CURLE_UNSUPPORTED_PROTOCOL ("Unsupported HTTP version in response"),
    /// which FoundationNetworking reports as `URLError.unsupportedURL`; for an http(s) URL the URLSession transport
    /// reads that as an answer that is not HTTP, `.transport`.
    @Test("an invalid status line fails with .transport", arguments: TransportKind.allCases)
    func invalidStatusLine(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            await expectParleyError(.transport) {
                try await client.send(FaultCall<Data>(path: "/invalid-status-line"))
            }
        }
    }

    #if canImport(FoundationNetworking)
        static let foundationNetworking = true
    #else
        static let foundationNetworking = false
    #endif
}
