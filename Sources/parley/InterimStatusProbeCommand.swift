import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// `parley _probe-unprotected-ahc URL` (hidden): one GET with a plain `HTTPClient`, without Parley's
/// `AsyncHTTPClientTransport.protected(_:)`, for the test that watches AsyncHTTPClient's crash on a status code below
/// 100 (see docs/upstream/async-http-client-interim-status-crash.md). Prints `status N` or `error: …`.
struct InterimStatusProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_probe-unprotected-ahc",
        abstract: "One GET with an unprotected AsyncHTTPClient (for Parley's own tests).",
        shouldDisplay: false
    )

    @Argument(help: "The URL to GET.")
    var url: String

    func run() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration())
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1 << 20)
            print("status \(response.status)")
        } catch {
            print("error: \(error)")
            try? await client.shutdown()
            throw ExitCode(1)
        }
        try? await client.shutdown()
    }
}
