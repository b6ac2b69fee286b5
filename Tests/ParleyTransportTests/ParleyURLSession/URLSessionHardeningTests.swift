import AsyncHTTPClient
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyURLSession
import Testing

@testable import ParleyTestSupport

/// Hostile answers that URLSession (FoundationNetworking and libcurl on Linux) used to take for good ones: interim
/// responses, ambiguous framing and decompression bombs. Each must end the same way on both transports.
@Suite("URLSession hardening", .timeLimit(.minutes(2)))
struct URLSessionHardeningTests {
    @Test("a 100 Interim before the 200 is skipped: the final response comes back", arguments: TransportKind.allCases)
    func interim100(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let (text, response) = try await client.response(for: FaultCall<String>(path: "/interim-100"))
            #expect(response.status == .ok)
            #expect(text == "ok")
        }
    }

    @Test("1000 × 103 Early Hints before the 200 are skipped", arguments: TransportKind.allCases)
    func earlyHints(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let (text, response) = try await client.response(
                for: FaultCall<String>(path: "/early-hints", query: ["count": "1000"])
            )
            #expect(response.status == .ok)
            #expect(text == "ok")
            #expect(response.headerFields[HTTPField.Name("Link")!] == nil)
        }
    }

    @Test(
        "an ambiguous Content-Length fails with .transport",
        arguments: TransportKind.allCases,
        ["/content-length-twice", "/content-length-list", "/content-length-huge"]
    )
    func ambiguousLength(_ kind: TransportKind, path: String) async throws {
        try await withFaultClient(kind) { client, _ in
            await expectParleyError(.transport) {
                try await client.send(FaultCall<String>(path: Path(percentEncoded: path)))
            }
            // Streamed, the head already fails.
            await expectParleyError(.transport) {
                let streamed = try await client.stream(FaultCall<Data>(path: Path(percentEncoded: path)))
                for try await _ in streamed.body {}
            }
        }
    }

    @Test("the message says the framing is not valid HTTP/1.1 and shows the value escaped")
    func ambiguousLengthMessage() async throws {
        try await withFaultClient(.urlSession) { client, _ in
            let error = await expectParleyError(.transport) {
                try await client.send(FaultCall<String>(path: "/content-length-list"))
            }
            #expect(error?.message.contains("not valid HTTP/1.1") == true, "\(String(describing: error))")
            #expect(error?.message.contains("5, 10") == true, "\(String(describing: error))")
        }
    }
}
