import ArgumentParser
import Foundation
import Parley
import ParleyURLSession

/// `parley _probe-urlsession URL` (hidden): one GET through Parley's `URLSessionTransport`, for the test that watches
/// FoundationNetworking's crash on a response whose head is cut short (Swift 6.3 toolchain; fixed upstream by
/// swift-corelibs-foundation #5286, in 6.4). Prints `status N` or `error: …`.
struct URLSessionProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_probe-urlsession",
        abstract: "One GET through URLSessionTransport (for Parley's own tests).",
        shouldDisplay: false
    )

    @Argument(help: "The URL to GET.")
    var url: String

    /// The URL's path and query items.
    struct Probe: Endpoint {
        typealias Response = Data
        let path: Path
        let query: Query
    }

    func run() async throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host,
            let base = URL(string: "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")")
        else { throw ValidationError("not an absolute URL: \(url)") }
        let probe = Probe(
            path: Path(percentEncoded: components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath),
            query: Query((components.queryItems ?? []).map { QueryItem($0.name, $0.value) })
        )
        let client = Client(baseURL: base, transport: URLSessionTransport(), configuration: .init(timeout: .seconds(20)))
        do {
            let (_, response) = try await client.response(for: probe)
            print("status \(response.status.code)")
        } catch {
            print("error: \(error)")
            try? await client.shutdown()
            throw ExitCode(1)
        }
        try? await client.shutdown()
    }
}
