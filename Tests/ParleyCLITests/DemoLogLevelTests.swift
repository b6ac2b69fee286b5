import Foundation
import Testing

@testable import ParleyTestSupport

@Suite("parley demo --log-level", .timeLimit(.minutes(2)))
struct DemoLogLevelTests {
    @Test("--log-level debug logs every request of the walkthrough to standard error, secrets redacted")
    func debugLogs() async throws {
        let run = try await ParleyRun(["demo", "--log-level", "debug"])
        #expect(run.status == 0, "\(run.error)")
        let output = String(decoding: run.output, as: UTF8.self)
        #expect(output.contains("Done."))
        #expect(!output.contains("parley.request_id"), "logs go to standard error only")
        let lines = run.error.split(separator: "\n")
        let sent = lines.filter { $0.contains(" debug parley.demo:") && $0.contains("] → GET http://127.0.0.1:") }
        let over = lines.filter { $0.contains(" info parley.demo:") && $0.contains(" → 200 OK in ") }
        #expect(!sent.isEmpty && !over.isEmpty, "\(run.error.prefix(2000))")
        #expect(
            lines.contains {
                $0.contains("parley.endpoint=FlakyStatus") && $0.contains(" warning parley.demo:") && $0.contains("→ 503")
            }
        )
        #expect(lines.contains { $0.contains("parley.attempt=3") && $0.contains("parley.endpoint=FlakyStatus") })
        #expect(lines.contains { $0.contains("authorization: <redacted>") })
        #expect(!run.error.lowercased().contains("authorization: bearer"), "no bearer token in the logs")
        #expect(lines.allSatisfy { !$0.contains("http.request.body=") }, "bodies only at trace")
    }

    @Test("Without --log-level nothing is logged; a level that does not exist is refused")
    func quietAndRefused() async throws {
        let quiet = try await ParleyRun(["demo"])
        #expect(quiet.status == 0, "\(quiet.error)")
        #expect(quiet.error.isEmpty, "\(quiet.error.prefix(2000))")
        let refused = try await ParleyRun(["demo", "--log-level", "loud"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("'loud' is not a log level: use trace, debug, info, notice, warning, error, critical."))
    }
}
