import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient

/// `parley download URL FILE`: streams a response body into a file.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a URL into a file, streamed to disk.",
        discussion: """
            Examples:
              parley download http://127.0.0.1:8080/download?n=1073741824 big.bin
              parley download --resume http://127.0.0.1:8080/download?n=1073741824 big.bin
            The body is written to .FILE.parley-partial next to FILE and renamed to FILE only once complete, so a \
            failed download never leaves a truncated FILE. When the server supports ranges, the partial file is \
            kept after a failure and --resume asks only for the missing bytes (and starts again from the first \
            byte when the file changed on the server). On a terminal a progress bar is drawn on standard error; \
            otherwise a one-line summary is written there at the end. The exit status is 0 for a 2xx answer, 1 \
            otherwise (the error is printed on standard error).
            """
    )

    @Argument(help: "What to download, such as http://127.0.0.1:8080/download?n=1048576.")
    var url: String

    @Argument(help: "The file to write (replaced when it exists).")
    var file: String

    @Flag(help: "Continue an interrupted download of the same URL from its partial file.")
    var resume = false

    @Option(name: .customLong("header"), help: "A request header field, as 'Name: value' (repeatable).")
    var headers: [String] = []

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        _ = try URLEndpoint.parseHeaders(headers)
    }

    func run() async throws {
        let endpoint = try URLEndpoint(url: url, headers: URLEndpoint.parseHeaders(headers), name: "download")
        let run = TransferRun(verb: "downloaded")
        let client: Client
        do {
            client = Client(baseURL: endpoint.origin, transport: try connection.transport())
        } catch {
            throw run.fail(error)
        }
        let start = ContinuousClock.now
        let transfer = client.download(endpoint, to: URL(fileURLWithPath: file), resume: resume)
        let (result, summary) = await run.wait(for: transfer, startedAt: start)
        try? await client.shutdown()
        switch result {
        case .success(let download):
            let resumed = download.resumedFrom > 0 ? ", resumed after \(download.resumedFrom) bytes," : ""
            run.summarize(summary, bytes: download.bytes, detail: " to \(file)\(resumed)")
        case .failure(let error):
            throw run.fail(error)
        }
    }
}
