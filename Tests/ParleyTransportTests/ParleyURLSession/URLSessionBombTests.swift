import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// A chunked gzip bomb (no `Content-Length`): the call fails fast with `.bodyTooLarge` on both transports.
///
/// Over URLSession libcurl inflates on (discarded) until the cancellation reaches FoundationNetworking's work queue,
/// which every URLSession of the process shares: this suite holds that queue for seconds after its call failed.
/// Run it in its own `swift test` invocation.
@Suite("URLSession bombs", .serialized, .timeLimit(.minutes(2)))
struct URLSessionBombTests {
    @Test(
        "a chunked gzip bomb (10 GiB, no Content-Length) fails fast with .bodyTooLarge while streaming",
        arguments: TransportKind.allCases
    )
    func chunkedBomb(_ kind: TransportKind) async throws {
        let server = try await FaultServer.start()
        let client = Client(baseURL: try #require(URL(string: server.baseURL)), transport: makeFaultTransport(kind))
        let clock = ContinuousClock()
        let start = clock.now
        var inflated = 0
        let error = await expectParleyError(.bodyTooLarge) {
            let streamed = try await client.stream(FaultCall<Data>(path: "/gzip-bomb-chunked"))
            for try await chunk in streamed.body { inflated += chunk.count }
        }
        #expect(clock.now - start < .seconds(20))
        // AsyncHTTPClient: past 1 MiB; URLSession (no compressed size known): past maxRatio (100) MiB.
        #expect(inflated <= 100 << 20)
        #expect(error?.message.contains("ResponseDecompression.maxRatio") == true, "\(String(describing: error))")
        try await client.shutdown()
        await server.stop()
    }
}
