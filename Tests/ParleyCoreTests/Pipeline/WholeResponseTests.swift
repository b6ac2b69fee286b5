import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// `/bytes?n=N` of the demo server: `N` bytes of a repeating pattern.
private struct Bytes: Endpoint {
    typealias Response = Data
    var count: Int
    var accepted: StatusCodes? = nil
    var path: Path { "/bytes" }
    var query: Query { ["n": String(count)] }
    var acceptableStatusCodes: StatusCodes? { accepted }
}

/// A buffered call over AsyncHTTPClient reads its response whole on the event loop (issue 26), and over a plain
/// transport (URLSession's) as soon as the transport hands up the head (issue 34): the limits and the errors are those
/// of a streamed body, on both transports.
@Suite("Buffered calls read whole where the bytes arrive, with the limits of a streamed body")
struct WholeResponseTests {
    @Test(
        "an unacceptable status with a body over the size limit fails as unacceptable, with its first bytes",
        arguments: TransportKind.allCases
    )
    func unacceptableAndTooLarge(_ kind: TransportKind) async throws {
        try await withDemoClient(kind, configuration: Client.Configuration(maxResponseBodySize: 1024)) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.send(Bytes(count: 200_000, accepted: [201...201]))
            }
            #expect(error?.response?.status.code == 200)
            let excerpt = try #require(error?.body)
            #expect(excerpt.count == ParleyError.excerptLimit)
            // The same bytes as a successful call of the same length returns.
            let whole = try await client.send(Bytes(count: 1024))
            #expect(excerpt.prefix(1024) == whole)
        }
    }

    @Test(
        "a body over the size limit fails with bodyTooLarge, declared or not, and the client goes on",
        arguments: TransportKind.allCases
    )
    func tooLarge(_ kind: TransportKind) async throws {
        try await withDemoClient(kind, configuration: Client.Configuration(maxResponseBodySize: 1024)) { client, _ in
            let declared = await expectParleyError(.bodyTooLarge) { try await client.send(Bytes(count: 1025)) }
            #expect(declared?.message.contains("1025") == true, "\(declared?.message ?? "")")
            struct Chunked: Endpoint {
                typealias Response = Data
                var path: Path { "/bytes" }
                var query: Query { ["n": "300000", "chunked": "true"] }
            }
            _ = await expectParleyError(.bodyTooLarge) { try await client.send(Chunked()) }
            let exact = try await client.send(Bytes(count: 1024))
            #expect(exact.count == 1024)
        }
    }

    @Test("a limit of one call at a time is given back once a body read whole has arrived", arguments: TransportKind.allCases)
    func slotReturned(_ kind: TransportKind) async throws {
        try await withDemoClient(kind, configuration: Client.Configuration(maxConcurrentRequests: 1)) { client, _ in
            for count in [0, 1, 70_000] {
                let data = try await client.send(Bytes(count: count))
                #expect(data.count == count)
            }
            // Void drops the body unread (it is not read whole): the slot comes back too.
            struct Drop: Endpoint {
                typealias Response = Void
                var path: Path { "/bytes" }
                var query: Query { ["n": "100000"] }
            }
            try await client.send(Drop())
            #expect(try await client.send(Bytes(count: 10)).count == 10)
        }
    }
}
