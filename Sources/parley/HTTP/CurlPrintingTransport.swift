import Foundation
import Parley

/// `--curl`: a transport that prints the request it is handed (after every middleware and stage) as a curl command on
/// standard output, and answers `204 No Content` without sending anything.
struct CurlPrintingTransport: ClientTransport {
    /// The largest body written into the command.
    static let maxBody = 16 * 1024 * 1024

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var bytes: Data?
        if let body { bytes = try await Data(collecting: body, upTo: Self.maxBody) }
        let command = CurlCommand(request, baseURL: baseURL, body: bytes.map { .data($0) } ?? .none, secrets: .variables)
        Terminal.writeOutput(command.description + "\n")
        let variables = request.headerFields.filter { CurlCommand.alwaysSecret.contains($0.name) }
            .map { "\(CurlCommand.variable(for: $0.name)) (\($0.name.rawName))" }
        if !variables.isEmpty {
            Terminal.writeError("parley: set \(Set(variables).sorted().joined(separator: ", ")) before running it\n")
        }
        return (HTTPResponse(status: .noContent), nil)
    }
}
