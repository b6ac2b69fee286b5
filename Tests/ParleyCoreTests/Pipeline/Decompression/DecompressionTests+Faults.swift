import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

extension DecompressionTests {
    @Test("a truncated gzip body fails with transport: the body ended before its stream")
    func truncated() async throws {
        try await withDemoClient(.asyncHTTPClient) { client, _ in
            let endpoint = GetData(path: "/gzip/truncated", query: ["size": "200000"])
            let error = await expectParleyError(.transport) { try await client.send(endpoint) }
            #expect(error?.message.contains("ended before its gzip stream did") == true, "\(String(describing: error))")
            #expect(error?.message.contains("the connection or the server cut it short") == true)
            // Streamed, the bytes before the cut arrive first, then the error.
            let streamed = try await client.stream(endpoint)
            var data = Data()
            await expectParleyError(.transport) {
                for try await chunk in streamed.body { data.append(contentsOf: chunk) }
            }
            #expect(data == Self.text(count: data.count))
        }
    }

    @Test("over URLSession (libcurl) a truncated gzip body arrives short without an error")
    func truncatedOverURLSession() async throws {
        // libcurl inflates the body and does not report a stream that stops early: a known limit of the transport.
        try await withDemoClient(.urlSession) { client, _ in
            let data = try await client.send(GetData(path: "/gzip/truncated", query: ["size": "200000"]))
            #expect(data.count < 200_000)
            #expect(data == Self.text(count: data.count))
        }
    }

    @Test("a corrupt gzip body fails with decoding", arguments: TransportKind.allCases)
    func corrupt(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let endpoint = GetData(path: "/gzip/corrupt", query: ["size": "20000"])
            switch transport {
            case .asyncHTTPClient:
                let error = await expectParleyError(.decoding) { try await client.send(endpoint) }
                #expect(error?.message.contains("The gzip-encoded response body is corrupt: invalid block type") == true)
                #expect(error?.response?.headerFields[.contentEncoding] == "gzip")
            case .urlSession:
                // libcurl rejects it while decoding: a transport failure.
                await expectParleyError(.transport) { try await client.send(endpoint) }
            }
        }
    }

    @Test("bytes after the end of the gzip stream fail with decoding", arguments: TransportKind.allCases)
    func trailingGarbage(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let endpoint = GetData(path: "/gzip/trailing", query: ["size": "20000"])
            switch transport {
            case .asyncHTTPClient:
                let error = await expectParleyError(.decoding) { try await client.send(endpoint) }
                #expect(error?.message.contains("bytes follow the end of its compressed stream") == true)
            case .urlSession:
                await expectParleyError(.transport) { try await client.send(endpoint) }
            }
        }
    }

    @Test("compressed bytes written one at a time decode (headers split across chunks)", arguments: TransportKind.allCases)
    func byteByByte(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            for path: Path in ["/gzip", "/deflate"] {
                let data = try await client.send(GetData(path: path, query: ["size": "3000", "chunk": "1"]))
                #expect(data == Self.text(count: 3000), "\(path)")
            }
            let rawDeflate = GetData(path: "/deflate", query: ["size": "3000", "chunk": "1", "raw": "true"])
            guard transport == .urlSession else {
                let raw = try await client.send(rawDeflate)
                #expect(raw == Self.text(count: 3000))
                return
            }
            // libcurl (which inflates for URLSession on Linux) falls back to raw deflate when zlib's header check fails,
            // replaying the bytes of the read in which it failed; when the body's first read held a single byte, that
            // byte was consumed by the earlier call and is not replayed, and the call fails ("incorrect header check").
            // Whether the first read holds one byte or several is up to the timing of the server's writes.
            try await withKnownIssue("libcurl: raw deflate whose first body read is one byte fails", isIntermittent: true) {
                let raw = try await client.send(rawDeflate)
                #expect(raw == Self.text(count: 3000))
            } matching: { issue in
                // That failure alone, as URLSession reports libcurl's ("URLSession failed: Error while processing
                // content unencoding: incorrect header check (code -1)."). Any other failure fails the test.
                guard let error = issue.error as? ParleyError else { return false }
                return error.kind == .transport && error.message.contains("content unencoding: incorrect header check")
            }
        }
    }

    @Test("concatenated gzip members decode as one body")
    func members() async throws {
        // Only Parley's decoder: libcurl 7.88 fails on a second gzip member (a transport error over URLSession).
        let configuration = Client.Configuration(decompression: ResponseDecompression(maxRatio: .max))
        try await withDemoClient(.asyncHTTPClient, configuration: configuration) { client, _ in
            // 3 members of 1 MiB of zeros and one of 5 bytes.
            let query: Query = ["inflated": String(3 << 20 + 5), "members": "true"]
            let data = try await client.send(GetData(path: "/gzip/bomb", query: query))
            #expect(data == Data(count: 3 << 20 + 5))
        }
    }

    @Test("decompression nil sends no Accept-Encoding and leaves gzip bodies as they arrive", arguments: TransportKind.allCases)
    func disabled(_ transport: TransportKind) async throws {
        try await withDemoClient(transport, configuration: Client.Configuration(decompression: nil)) { client, _ in
            let echo = try await client.send(EchoEndpoint())
            let (data, response) = try await client.response(for: GetData(path: "/gzip", query: ["size": "5000"]))
            switch transport {
            case .asyncHTTPClient:
                #expect(echo.header("accept-encoding").isEmpty)
                #expect(response.headerFields[.contentEncoding] == "gzip")
                #expect(response.headerFields[.contentLength] == String(data.count))
                #expect(data.prefix(2) == Data([0x1F, 0x8B]))
                #expect(data.count < 5000)
            case .urlSession:
                // libcurl asks for what it can decode, and decodes it.
                #expect(echo.header("accept-encoding").first?.contains("gzip") == true, "\(echo.header("accept-encoding"))")
                #expect(response.headerFields[.contentEncoding] == nil)
                #expect(data == Self.text(count: 5000))
            }
        }
    }
}
