import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// Response decompression against the demo server's compressed routes, on both transports.
///
/// AsyncHTTPClient hands over the bytes as sent, so Parley inflates them under ``ResponseDecompression``'s limits.
/// URLSession inflates `gzip` and `deflate` itself and the transport drops the `Content-Encoding`, so there the body
/// arrives decoded once; the transport applies the same limits to what URLSession inflates (the ratio against the
/// whole compressed body, see `InflationLimit`).
@Suite("Response decompression", .timeLimit(.minutes(1)))
struct DecompressionTests {
    struct Payload: Decodable, Sendable {
        let text: String
    }

    /// What the demo server compresses: the first `count` bytes of its numbered lines.
    static func text(count: Int) -> Data {
        var data = Data(capacity: count + 64)
        var line = 0
        while data.count < count {
            data.append(contentsOf: "\(line) The quick brown fox jumps over the lazy dog.\n".utf8)
            line += 1
        }
        return data.prefix(count)
    }

    /// The compressed byte count a decompression error names ("… from N compressed bytes …").
    static func compressedBytes(in error: ParleyError?) -> Int? {
        guard let match = error?.message.firstMatch(of: /from (\d+) compressed bytes/) else { return nil }
        return Int(match.1)
    }

    @Test("gzip, x-gzip, deflate (zlib and raw) decode to the exact bytes, headers adjusted", arguments: TransportKind.allCases)
    func decodesExactly(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let cases: [(path: Path, query: Query)] = [
                ("/gzip", [:]),
                ("/gzip", ["encoding": "x-gzip"]),
                ("/gzip", ["encoding": "GZIP"]),
                ("/gzip", ["encoding": "gzip, identity"]),
                ("/deflate", [:]),
                ("/deflate", ["raw": "true"]),
            ]
            for (path, query) in cases {
                var query = query
                query.append("size", "300000")
                query.append("chunk", "1000")
                let (data, response) = try await client.response(for: GetData(path: path, query: query))
                #expect(data == Self.text(count: 300_000), "\(path) \(query)")
                #expect(response.headerFields[.contentEncoding] == nil, "\(path) \(query)")
                #expect(response.headerFields[.contentLength] == nil, "\(path) \(query)")
            }
        }
    }

    @Test("a gzip JSON body decodes into its type", arguments: TransportKind.allCases)
    func decodesJSON(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let payload = try await client.send(Get<Payload>(path: "/gzip", query: ["type": "json", "size": "5011"]))
            // The server separates the lines with spaces in JSON.
            #expect(Data(payload.text.utf8) == Data(Self.text(count: 5000).map { $0 == 0x0A ? 0x20 : $0 }))
        }
    }

    @Test(
        "requests ask for gzip and deflate; their own Accept-Encoding and Range requests are left alone",
        arguments: TransportKind.allCases
    )
    func acceptEncoding(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let echo = try await client.send(EchoEndpoint())
            #expect(echo.header("accept-encoding") == ["gzip, deflate"])
            let own = try await client.send(EchoEndpoint(headers: ["Accept-Encoding": "br"]))
            #expect(own.header("accept-encoding") == ["br"])
            let range = try await client.send(EchoEndpoint(headers: ["Range": "bytes=0-"]))
            #expect(range.header("accept-encoding") == ["identity"])
        }
    }

    @Test("a body labelled gzip with no bytes is empty, not an error", arguments: TransportKind.allCases)
    func emptyBody(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let data = try await client.send(GetData(path: "/gzip/empty"))
            #expect(data.isEmpty)
        }
    }

    @Test("a 10 MB gzip body that inflates to 10 GiB fails fast with bodyTooLarge", arguments: TransportKind.allCases)
    func bomb(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let start = ContinuousClock.now
            let error = await expectParleyError(.bodyTooLarge) {
                // Read as Void: nothing but the decompression limits bounds it.
                try await client.send(FaultCallDroppingBody(path: "/gzip/bomb", query: ["inflated": String(10 << 30)]))
            }
            #expect(ContinuousClock.now - start < .seconds(30))
            #expect(error?.message.contains("ResponseDecompression.maxRatio") == true, "\(String(describing: error))")
            switch transport {
            case .asyncHTTPClient:
                // The ratio limit stops it past 1 MiB inflated, after about 1 KiB of its 10 MB.
                let compressed = try #require(Self.compressedBytes(in: error))
                #expect(compressed < 64 * 1024)
                #expect(error?.response?.headerFields[.contentEncoding] == "gzip")
            case .urlSession:
                // libcurl inflates before Parley sees the bytes, and does not say how many compressed bytes came:
                // the ratio is taken against the Content-Length, so it stops past 100 × 10 MB (about 1 GB).
                #expect(error?.message.contains("(its Content-Length)") == true, "\(String(describing: error))")
            }
        }
    }

    @Test("the ratio limit applies past 1 MiB inflated, not before", arguments: TransportKind.allCases)
    func ratioLimit(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            // About 1000 to 1, but under 1 MiB: decoded.
            let small = try await client.send(GetData(path: "/gzip/bomb", query: ["inflated": "1000000"]))
            #expect(small == Data(count: 1_000_000))
            let large = GetData(path: "/gzip/bomb", query: ["inflated": String(8 << 20)])
            let error = await expectParleyError(.bodyTooLarge) { try await client.send(large) }
            #expect(error?.message.contains("past the limit of 100 to 1") == true, "\(String(describing: error))")
        }
    }

    @Test("the size limit stops the body at maxSize, and a body of exactly maxSize passes", arguments: TransportKind.allCases)
    func sizeLimit(_ transport: TransportKind) async throws {
        let configuration = Client.Configuration(
            maxResponseBodySize: 256 << 20,
            decompression: ResponseDecompression(maxSize: 4 << 20, maxRatio: .max)
        )
        try await withDemoClient(transport, configuration: configuration) { client, _ in
            let exact = try await client.send(GetData(path: "/gzip/bomb", query: ["inflated": String(4 << 20)]))
            #expect(exact.count == 4 << 20)
            let over = GetData(path: "/gzip/bomb", query: ["inflated": String(64 << 20)])
            let error = await expectParleyError(.bodyTooLarge) { try await client.send(over) }
            #expect(error?.message.contains("past the limit of 4194304 bytes (ResponseDecompression.maxSize)") == true)
            #expect(error?.message.contains("Client.Configuration.decompression") == true)
        }
    }

    @Test("a streamed body inflates as it is read, and a bomb fails while streaming", arguments: TransportKind.allCases)
    func streaming(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let streamed = try await client.stream(GetData(path: "/gzip", query: ["size": "2000000", "chunk": "4096"]))
            #expect(streamed.response.headerFields[.contentEncoding] == nil)
            var data = Data()
            var chunks = 0
            for try await chunk in streamed.body {
                #expect(chunk.count <= 64 * 1024 || transport == .urlSession)
                data.append(contentsOf: chunk)
                chunks += 1
            }
            #expect(data == Self.text(count: 2_000_000))
            #expect(chunks > 1)
            guard transport == .asyncHTTPClient else { return }
            let bomb = try await client.stream(GetData(path: "/gzip/bomb", query: ["inflated": String(10 << 30)]))
            var inflated = 0
            await expectParleyError(.bodyTooLarge) {
                for try await chunk in bomb.body { inflated += chunk.count }
            }
            #expect(inflated <= (1 << 20) + 64 * 1024)
        }
    }

    @Test("stopping early drops the stream without error", arguments: TransportKind.allCases)
    func stopEarly(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let streamed = try await client.stream(GetData(path: "/gzip", query: ["size": "4000000", "chunk": "4096"]))
            var first: ArraySlice<UInt8>?
            for try await chunk in streamed.body {
                first = chunk
                break
            }
            let chunk = try #require(first)
            #expect(Data(chunk) == Self.text(count: chunk.count))
            // The connection and client are still usable.
            #expect(try await client.send(GetData(path: "/gzip", query: ["size": "10"])) == Self.text(count: 10))
        }
    }
}
