import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite(
    "parley get keeps cookies for the invocation (httpbin)",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"] != nil && ParleyRun.executable != nil,
        "needs httpbin (scripts/start-peers) and the built parley executable"
    )
)
struct HTTPCookieCommandTests {
    @Test("a cookie set on a redirect hop is sent to the next hop: /cookies/set?a=b then shows a")
    func redirectHop() async throws {
        let httpbin = try #require(ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"])
        let run = try await ParleyRun(["get", "\(httpbin)/cookies/set?a=b", "--pretty", "none"])
        #expect(run.status == 0, "\(run.error)")
        let answer = try JSONDecoder().decode(JSONValue.self, from: run.output)
        #expect(answer == ["cookies": ["a": "b"]])
    }
}
