import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite(
    "parley through proxies: --proxy, and the environment's by default (tinyproxy, httpbin)",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_TINYPROXY_URL"] != nil
            && ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"] != nil && ParleyRun.executable != nil,
        "needs tinyproxy and httpbin (scripts/start-peers) and the built parley executable"
    )
)
struct HTTPProxyCommandTests {
    private let environment = ProcessInfo.processInfo.environment

    /// How many tunnels to httpbin tinyproxy has logged.
    private func tunnels() throws -> Int {
        let log = try String(contentsOfFile: try #require(environment["PARLEY_TINYPROXY_LOG"]), encoding: .utf8)
        let port = URL(string: try #require(environment["PARLEY_HTTPBIN_URL"]))?.port ?? 0
        return log.components(separatedBy: "CONNECT 127.0.0.1:\(port) ").count - 1
    }

    @Test("--proxy URL sends through it; http_proxy in the environment does by default; --proxy wins over it")
    func proxies() async throws {
        let httpbin = try #require(environment["PARLEY_HTTPBIN_URL"])
        let proxy = try #require(environment["PARLEY_TINYPROXY_URL"])
        var before = try tunnels()
        let explicit = try await ParleyRun(["get", "\(httpbin)/get", "--proxy", proxy], environment: ["http_proxy": nil])
        #expect(explicit.status == 0, "\(explicit.error)")
        #expect(try tunnels() == before + 1)
        before = try tunnels()
        let fromEnvironment = try await ParleyRun(["get", "\(httpbin)/get"], environment: ["http_proxy": proxy])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.error)")
        #expect(try tunnels() == before + 1)
        before = try tunnels()
        let excluded = try await ParleyRun(
            ["get", "\(httpbin)/get"],
            environment: ["http_proxy": proxy, "no_proxy": "127.0.0.1"]
        )
        #expect(excluded.status == 0, "\(excluded.error)")
        #expect(try tunnels() == before, "no_proxy: direct")
    }

    @Test("a proxy's password never reaches the terminal, whatever fails")
    func credentials() async throws {
        let httpbin = try #require(environment["PARLEY_HTTPBIN_URL"])
        let authURL = try #require(environment["PARLEY_TINYPROXY_AUTH_URL"])
        let wrong = authURL.replacingOccurrences(of: "pr0xy-s3cret", with: "wr0ng-s3cret")
        let run = try await ParleyRun(["get", "\(httpbin)/get", "--proxy", wrong])
        #expect(run.status != 0)
        #expect(run.error.contains("tunnel"), "\(run.error)")
        #expect(!run.error.contains("wr0ng-s3cret") && !run.text.contains("wr0ng-s3cret"))
        let invalid = try await ParleyRun(["get", "\(httpbin)/get", "--proxy", "ftp://x"])
        #expect(invalid.status == 64, "\(invalid.error)")
    }
}
