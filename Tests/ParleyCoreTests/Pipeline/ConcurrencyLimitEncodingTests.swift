import Foundation
import HTTPTypes
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// A JSON body that counts how often it is encoded.
struct CountingPayload: Encodable, Sendable {
    let encodes: LockedBox<Int>

    func encode(to encoder: any Encoder) throws {
        encodes.mutate { $0 += 1 }
        var container = encoder.singleValueContainer()
        try container.encode("payload")
    }
}

/// A POST to `/echo` with a ``CountingPayload``.
struct CountedPost: Endpoint {
    typealias Response = Echo
    let payload: CountingPayload
    var method: HTTPRequest.Method { .post }
    var path: Path { "/echo" }
    var body: RequestBody { .json(payload) }
}

@Suite("Concurrency limit: waiting calls hold no body", .timeLimit(.minutes(1)))
struct ConcurrencyLimitEncodingTests {
    /// With both slots held by unread streams, 40 calls wait; none of them has encoded its body. Once the slots are
    /// free, each is encoded exactly once and sent.
    @Test("a call waiting for a slot has not built its body yet", arguments: TransportKind.allCases)
    func slotBeforeBody(_ transport: TransportKind) async throws {
        let waiting = 40
        let encodes = LockedBox(0)
        let configuration = Client.Configuration(maxConcurrentRequests: 2)
        try await withDemoClient(transport, configuration: configuration) { client, _ in
            let limiter = try #require(client.limiter)
            // The streamed responses hold both slots until their bodies are dropped.
            var holders: [StreamedResponse]? = [
                try await client.stream(Hang(id: UUID().uuidString)),
                try await client.stream(Hang(id: UUID().uuidString)),
            ]
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<waiting {
                    group.addTask { try await client.send(CountedPost(payload: CountingPayload(encodes: encodes))).body ?? "" }
                }
                await limiter.waitUntilQueued(waiting)
                #expect(encodes.value == 0, "calls waiting for a slot encoded their bodies")
                #expect(holders?.count == 2)
                holders = nil
                for try await body in group { #expect(body == #""payload""#) }
            }
            #expect(encodes.value == waiting)
        }
    }
}
