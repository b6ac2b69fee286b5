import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient

/// `parley upload URL FILE`: streams a file as a request body and prints the response.
struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Stream a file to a URL as the request body and print the response body.",
        discussion: """
            Examples:
              parley upload http://127.0.0.1:8080/upload backup.tar
              parley upload --method PUT --content-type image/png http://127.0.0.1:8080/avatars/7 avatar.png
              parley upload --header 'Authorization: Bearer TOKEN' http://127.0.0.1:8080/upload data.bin
            The file is read from disk as it is sent (constant memory) with its size as Content-Length. On a \
            terminal a progress bar is drawn on standard error; otherwise a one-line summary is written there at \
            the end. The response body is printed on standard output: indented JSON on a terminal, exactly the \
            bytes received otherwise. The exit status is 0 for a 2xx answer, 1 otherwise (the error is printed on \
            standard error).
            """
    )

    /// The methods that send a body.
    enum Method: String, ExpressibleByArgument, CaseIterable {
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"

        init?(argument: String) {
            self.init(rawValue: argument.uppercased())
        }

        var httpMethod: HTTPRequest.Method {
            switch self {
            case .post: .post
            case .put: .put
            case .patch: .patch
            }
        }
    }

    @Argument(help: "Where to send the file, such as http://127.0.0.1:8080/upload.")
    var url: String

    @Argument(help: "The file to send.")
    var file: String

    @Option(help: "The request method: POST, PUT or PATCH.")
    var method: Method = .post

    @Option(help: "The body's media type.")
    var contentType = "application/octet-stream"

    @Option(name: .customLong("header"), help: "A request header field, as 'Name: value' (repeatable).")
    var headers: [String] = []

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        _ = try URLEndpoint.parseHeaders(headers)
    }

    func run() async throws {
        let endpoint = try URLEndpoint(
            url: url,
            method: method.httpMethod,
            headers: URLEndpoint.parseHeaders(headers),
            name: "upload"
        )
        let run = TransferRun(verb: "uploaded")
        let client: Client
        do {
            client = Client(baseURL: endpoint.origin, transport: try connection.transport())
        } catch {
            throw run.fail(error)
        }
        let start = ContinuousClock.now
        let transfer = client.upload(endpoint, fromFile: URL(fileURLWithPath: file), contentType: contentType)
        let (result, summary) = await run.wait(for: transfer, startedAt: start)
        try? await client.shutdown()
        switch result {
        case .success(let body):
            run.summarize(summary, bytes: summary.last?.completedBytes ?? 0)
            Terminal.printBody(body)
        case .failure(let error):
            throw run.fail(error)
        }
    }
}
