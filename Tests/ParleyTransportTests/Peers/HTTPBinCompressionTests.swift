import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// A body sent to httpbin's `/anything`, which echoes it (`data`: the text, or `data:…;base64,…` for bytes).
private struct Upload: Endpoint {
    typealias Response = JSONValue
    var method: HTTPRequest.Method = .post
    var path: Path = "/anything"
    var query: Query = []
    var headers: Headers = [:]
    var body: RequestBody
}

/// Request bodies compressed by `RequestCompressionMiddleware`, as httpbin received them, inflated by CPython's zlib.
@Suite(
    "Independent peer: request bodies compressed (httpbin, inflated by Python)",
    .enabled(
        if: HTTPBin.url != nil && ProcessInfo.processInfo.environment["PARLEY_PYTHON"] != nil,
        "scripts/start-peers starts httpbin and sets PARLEY_HTTPBIN_URL and PARLEY_PYTHON"
    )
)
struct HTTPBinCompressionTests {
    private static let text = String(repeating: "Parley compresses what it sends. ", count: 400)

    /// The bytes httpbin received, from its echo.
    private func received(_ echo: JSONValue) throws -> Data {
        let data = try #require(echo["data"]?.stringValue)
        let prefix = "data:application/octet-stream;base64,"
        guard data.hasPrefix(prefix) else { return Data(data.utf8) }
        return try #require(Data(base64Encoded: String(data.dropFirst(prefix.count))))
    }

    /// `compressed` inflated by CPython's zlib (gzip or zlib-wrapped, recognised by their headers).
    private func inflated(_ compressed: Data) async throws -> Data {
        let folder = try CommandScratchFolder()
        let input = folder.path + "/in", output = folder.path + "/out"
        try compressed.write(to: URL(fileURLWithPath: input))
        let script = "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1], 'rb').read(), 47))"
        let python = try #require(ProcessInfo.processInfo.environment["PARLEY_PYTHON"])
        let exit = try await runToEnd(python, ["-c", script, input], output: output, error: folder.path + "/err")
        #expect(exit.code == 0 && !exit.bySignal)
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    @Test(
        "gzip and deflate: Content-Encoding set, the bytes inflate to the body; a retry of the redirect resends them",
        arguments: TransportKind.allCases,
        [RequestCompressionMiddleware.Coding.gzip, .deflate]
    )
    func compressed(transport: TransportKind, coding: RequestCompressionMiddleware.Coding) async throws {
        let client = Client(
            baseURL: try #require(HTTPBin.url),
            transport: transport.makeTransport(),
            middlewares: [.compressingRequests(coding, minimumSize: 1024)]
        )
        let echo = try await client.send(Upload(body: .text(Self.text)))
        #expect(echo["headers"]?["Content-Encoding"] == .string(coding.rawValue))
        let bytes = try received(echo)
        #expect(bytes.count < Self.text.utf8.count / 10, "\(bytes.count) bytes")
        #expect(bytes.starts(with: coding == .gzip ? [0x1F, 0x8B] : [0x78]))
        #expect(try await inflated(bytes) == Data(Self.text.utf8))
        // 307 keeps the body: the compressed body is made again for the next hop.
        let redirected = try await client.send(
            Upload(path: "/redirect-to", query: ["url": "/anything", "status_code": "307"], body: .text(Self.text))
        )
        #expect(try await inflated(try received(redirected)) == Data(Self.text.utf8))
        try await client.shutdown()
    }

    @Test("a body below the minimum, or one already encoded, goes as it is", arguments: TransportKind.allCases)
    func untouched(transport: TransportKind) async throws {
        let client = Client(
            baseURL: try #require(HTTPBin.url),
            transport: transport.makeTransport(),
            middlewares: [.compressingRequests(.gzip, minimumSize: 1024)]
        )
        let small = try await client.send(Upload(body: .text("short")))
        #expect(small["data"] == "short")
        #expect(small["headers"]?["Content-Encoding"] == nil)
        let encoded = try await client.send(Upload(headers: ["Content-Encoding": "identity"], body: .text(Self.text)))
        #expect(encoded["data"]?.stringValue == Self.text)
        #expect(encoded["headers"]?["Content-Encoding"] == "identity")
        try await client.shutdown()
    }
}
