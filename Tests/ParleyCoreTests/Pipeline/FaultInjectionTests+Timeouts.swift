import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Servers that stall or never finish: the timeouts and the body size limit end the call, with the exact error
/// kind, well before the server would have answered, and the client closes the connection.
@Suite("Fault injection: slow and endless answers", .timeLimit(.minutes(1)))
struct FaultTimeoutTests {
    /// The server would answer after 5 s (a timeout that does not fire lets the call succeed); the client gives up
    /// after 300 ms.
    private static let late: Query = ["delay": "5000"]
    /// No overall timeout: only the transport's idle timeout can end the call (else the suite's time limit does).
    private static let noOverallTimeout = Client.Configuration()

    @Test("slow headers: the client's 300 ms timeout fires with .timeout", arguments: TransportKind.allCases)
    func slowHeadersClientTimeout(_ kind: TransportKind) async throws {
        try await withFaultClient(kind, configuration: Client.Configuration(timeout: .milliseconds(300))) { client, _ in
            await expectParleyError(.timeout) {
                try await client.send(FaultCall<Data>(path: "/slow-headers", query: Self.late))
            }
        }
    }

    @Test("slow headers: the transport's 300 ms idle timeout fires with .timeout", arguments: TransportKind.allCases)
    func slowHeadersTransportTimeout(_ kind: TransportKind) async throws {
        try await withFaultClient(kind, idleTimeout: .milliseconds(300), configuration: Self.noOverallTimeout) { client, _ in
            await expectParleyError(.timeout) {
                try await client.send(FaultCall<Data>(path: "/slow-headers", query: Self.late))
            }
        }
    }

    @Test("a body that stalls: the client's 300 ms timeout fires with .timeout", arguments: TransportKind.allCases)
    func slowBodyClientTimeout(_ kind: TransportKind) async throws {
        try await withFaultClient(kind, configuration: Client.Configuration(timeout: .milliseconds(300))) { client, _ in
            await expectParleyError(.timeout) { try await client.send(FaultCall<Data>(path: "/slow-body")) }
        }
    }

    /// The head arrives, then the body stalls: the AsyncHTTPClient transport translates errors of the body stream too
    /// (a read timeout there is `.timeout`), as URLSession's does.
    @Test("a body that stalls: the transport's 300 ms idle timeout fires with .timeout", arguments: TransportKind.allCases)
    func slowBodyTransportTimeout(_ kind: TransportKind) async throws {
        try await withFaultClient(kind, idleTimeout: .milliseconds(300), configuration: Self.noOverallTimeout) { client, _ in
            await expectParleyError(.timeout) { try await client.send(FaultCall<Data>(path: "/slow-body")) }
        }
    }

    /// As fast as the client reads on AsyncHTTPClient. Over URLSession 64 bytes a millisecond: at loopback speed
    /// libcurl keeps FoundationNetworking's one work queue busy, and the cancellation, which waits for that queue on
    /// the Swift 6.3 toolchain, closed the connection only after 3–6 s, stalling the suite's other URLSession cases (a
    /// documented limitation of that transport on Linux).
    @Test("a body that never ends fails a buffering decoder with .bodyTooLarge", arguments: TransportKind.allCases)
    func neverEndsBodyTooLarge(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(
            timeout: .seconds(40),
            maxResponseBodySize: kind == .urlSession ? 16 * 1024 : 64 * 1024
        )
        let query: Query = kind == .urlSession ? ["interval": "1"] : []
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            await expectParleyError(.bodyTooLarge) { try await client.send(FaultCall<Data>(path: "/never-ends", query: query)) }
        }
    }

    @Test("a body that never ends (slowly) fails with .timeout", arguments: TransportKind.allCases)
    func neverEndsTimeout(_ kind: TransportKind) async throws {
        try await withFaultClient(kind, configuration: Client.Configuration(timeout: .milliseconds(300))) { client, _ in
            await expectParleyError(.timeout) {
                try await client.send(FaultCall<Data>(path: "/never-ends", query: ["interval": "20"]))
            }
        }
    }

    @Test(
        "a stream of a body that never ends, dropped after a few chunks, closes its connection",
        arguments: TransportKind.allCases
    )
    func neverEndsStreamDropped(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, server in
            do {
                let streamed = try await client.stream(FaultCall<Data>(path: "/never-ends", query: ["interval": "5"]))
                var received = 0
                for try await chunk in streamed.body {
                    received += chunk.count
                    if received >= 256 { break }
                }
                #expect(received >= 256)
            }
            // withFaultClient now waits for the server to see the connection closed.
            #expect(server.acceptedConnections == 1)
        }
    }
}
