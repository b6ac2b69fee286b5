import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Complete answers that are wrong: the call fails with the exact error kind and the connection is closed.
@Suite("Fault injection: wrong answers", .timeLimit(.minutes(1)))
struct FaultAnswerTests {
    @Test("invalid JSON fails with .decoding", arguments: TransportKind.allCases)
    func invalidJSON(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let error = await expectParleyError(.decoding) {
                try await client.send(FaultCall<FaultRecord>(path: "/invalid-json"))
            }
            #expect(error?.status == .ok)
            #expect(error?.bodyExcerpt == #"{"id": 1,"#)
        }
    }

    @Test("a 302 without Location is the answer, rejected with .unacceptableStatus", arguments: TransportKind.allCases)
    func redirectWithoutLocation(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, server in
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.send(FaultCall<Data>(path: "/no-location"))
            }
            #expect(error?.status?.code == 302)
            #expect(server.acceptedConnections == 1)
        }
    }
}
