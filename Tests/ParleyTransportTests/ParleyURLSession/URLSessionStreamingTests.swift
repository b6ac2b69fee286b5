import Crypto
import Foundation
import OpenAPIRuntime
import Parley
import ParleyURLSession
import Testing

@testable import ParleyTestSupport

/// Request bodies streamed by `URLSessionTransport` (FoundationNetworking's `httpBodyStream` on Linux), checked
/// by the demo server's `POST /upload`, which hashes what it received.
@Suite("URLSession streaming")
struct URLSessionStreamingTests {
    @Test("a 64 MiB body of known length streams with its Content-Length, byte-identical")
    func knownLengthUpload() async throws {
        let chunks = Chunks(count: 1024)
        let report = try await withDemoClient(.urlSession) { client, _ in
            try await client.send(Upload(content: HTTPBody(chunks, length: .known(chunks.length), iterationBehavior: .single)))
        }
        #expect(report.bytes == 64 << 20)
        #expect(report.contentLength == 64 << 20)
        #expect(report.sha256 == chunks.sha256())
    }

    @Test("a body of unknown length streams chunked, byte-identical")
    func unknownLengthUpload() async throws {
        let chunks = Chunks(count: 80)
        let report = try await withDemoClient(.urlSession) { client, _ in
            try await client.send(Upload(content: HTTPBody(chunks, length: .unknown, iterationBehavior: .single)))
        }
        #expect(report.bytes == chunks.length)
        #expect(report.contentLength == nil)
        #expect(report.sha256 == chunks.sha256())
    }

    @Test("a body whose sequence throws midway fails the call instead of sending it cut short", arguments: [true, false])
    func failingBody(knownLength: Bool) async throws {
        let chunks = Chunks(count: 64, failingAt: 20)
        try await withDemoClient(.urlSession) { client, _ in
            let length: HTTPBody.Length = knownLength ? .known(chunks.length) : .unknown
            let error = await expectParleyError(.transport) {
                try await client.send(Upload(content: HTTPBody(chunks, length: length, iterationBehavior: .single)))
            }
            #expect(error?.underlying is Chunks.ChunkError, "\(String(describing: error))")
        }
    }

    @Test("a body shorter than its declared length fails the call")
    func shortBody() async throws {
        let chunks = Chunks(count: 16)
        try await withDemoClient(.urlSession) { client, _ in
            await expectParleyError(.transport) {
                try await client.send(
                    Upload(content: HTTPBody(chunks, length: .known(chunks.length + 1), iterationBehavior: .single))
                )
            }
        }
    }

    @Test("cancelling a call whose body is stalled ends it, and the client goes on working")
    func cancelStalledUpload() async throws {
        let (stream, feed) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        try await withDemoClient(.urlSession) { client, _ in
            feed.yield(ArraySlice([UInt8](repeating: 7, count: 512 << 10)))
            let upload = Task {
                try await client.send(Upload(content: HTTPBody(stream, length: .known(1 << 20), iterationBehavior: .single)))
            }
            // FoundationNetworking now waits inside the body's read for bytes that never come; cancelling must fail
            // that read first, or URLSession's cancel() would wait for it.
            upload.cancel()
            await expectParleyError(.cancelled) { try await upload.value }
            feed.finish()
            let echo = try await client.send(EchoEndpoint())
            #expect(echo.method == "GET")
        }
    }
}

/// Response back-pressure of an owned session, seen from the demo server's `/written` probe (asked over
/// AsyncHTTPClient: while the gate holds FoundationNetworking's shared work queue, URLSession waits too).
@Suite(
    "URLSession response back-pressure",
    .disabled(
        if: ProcessInfo.processInfo.environment["PARLEY_URLSESSION_BACKPRESSURE"] == nil,
        "holds every URLSession transfer of the process while it runs; set PARLEY_URLSESSION_BACKPRESSURE=1 and run it alone"
    )
)
struct URLSessionBackPressureTests {
    struct Written: Decodable, Sendable {
        let written: Int
        let blocked: Bool
    }

    @Test("a consumer that stops reading holds the server's writes, and the rest then arrives intact")
    func slowConsumer() async throws {
        let size = 64 << 20
        try await withDemoClient(.asyncHTTPClient) { probe, server in
            let transport = URLSessionTransport(backPressure: true)
            let baseURL = try #require(URL(string: server.baseURL))
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/download?n=\(size)&key=slow")
            let (response, body) = try await transport.send(request, body: nil, baseURL: baseURL, operationID: "download")
            #expect(response.status == .ok)
            var chunks = try #require(body).makeAsyncIterator()
            var received = 0
            var intact = true
            func check(_ chunk: ArraySlice<UInt8>) {
                for (offset, byte) in chunk.enumerated() where byte != UInt8((received + offset) % 251) {
                    intact = false
                    break
                }
                received += chunk.count
            }
            if let first = try await chunks.next() { check(first) }
            // Nothing is read now: the server's writes must block well before the 64 MiB are sent.
            let written = try await probe.send(Get<Written>(path: "/written", query: ["key": "slow"]))
            #expect(written.blocked)
            #expect(written.written < 24 << 20, "the server wrote \(written.written) bytes to a consumer that stopped")
            while let chunk = try await chunks.next() { check(chunk) }
            #expect(received == size)
            #expect(intact)
            try await transport.shutdown()
        }
    }
}

extension URLSessionStreamingTests {
    /// `POST /upload` with a streamed body.
    struct Upload: Endpoint {
        typealias Response = Report
        let content: HTTPBody
        var method: HTTPRequest.Method { .post }
        var path: Path { "/upload" }
        var body: RequestBody { .stream(content, contentType: "application/octet-stream") }
    }

    /// What `/upload` saw.
    struct Report: Decodable, Sendable {
        let bytes: Int64
        let sha256: String
        let contentType: String?
        let contentLength: Int64?
    }

    /// `count` chunks of 64 KiB with distinct contents; throws ``ChunkError`` instead of chunk `failingAt`.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        struct ChunkError: Error {}

        let count: Int
        var failingAt: Int? = nil
        static let size = 64 << 10

        var length: Int64 { Int64(count * Self.size) }

        /// 64 KiB + 251 bytes; chunk `i` starts at offset `i % 251`, so neighbouring chunks differ.
        private static let pattern: [UInt8] = (0..<(size + 251)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

        /// Chunk `index` of the demo server's byte pattern (a slice of a block made once: building bytes one by one
        /// takes seconds per 64 MiB in a debug build, on a cooperative thread the whole suite shares).
        static func chunk(_ index: Int) -> ArraySlice<UInt8> {
            Pattern.chunk(at: index * size, length: size)
        }

        func sha256() -> String {
            Pattern.sha256(count * Self.size)
        }

        func makeAsyncIterator() -> Iterator { Iterator(chunks: self) }

        struct Iterator: AsyncIteratorProtocol {
            let chunks: Chunks
            var index = 0

            mutating func next() async throws -> ArraySlice<UInt8>? {
                guard index < chunks.count else { return nil }
                if index == chunks.failingAt { throw ChunkError() }
                defer { index += 1 }
                return Chunks.chunk(index)
            }
        }
    }
}
