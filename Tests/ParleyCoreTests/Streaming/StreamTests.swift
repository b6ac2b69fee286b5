import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Streamed responses")
struct StreamTests {
    struct Item: Decodable, Sendable, Equatable {
        let n: Int
        let name: String
    }

    @Test("NDJSON decodes line by line across chunk boundaries, with \\n and \\r\\n", arguments: TransportKind.allCases)
    func ndjson(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            for crlf in [false, true] {
                let endpoint = Get<Data>(path: "/ndjson", query: ["count": "500", "chunk": "7", "crlf": crlf ? "true" : "false"])
                let streamed = try await client.stream(endpoint)
                #expect(streamed.response.headerFields[.contentType]?.hasPrefix("application/x-ndjson") == true)
                var items: [Item] = []
                for try await item in streamed.body.jsonLines(of: Item.self) { items.append(item) }
                #expect(items == (0..<500).map { Item(n: $0, name: "item-\($0)") })
            }
        }
    }

    @Test("lines come out without their line ends", arguments: TransportKind.allCases)
    func lines(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let streamed = try await client.stream(
                Get<Data>(path: "/ndjson", query: ["count": "3", "crlf": "true", "chunk": "5"])
            )
            var lines: [String] = []
            for try await line in streamed.body.lines() { lines.append(line) }
            #expect(lines == (0..<3).map { "{\"n\":\($0),\"name\":\"item-\($0)\"}" })
        }
    }

    @Test("a bad NDJSON line fails with its line number and the line", arguments: TransportKind.allCases)
    func badLine(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let streamed = try await client.stream(Get<Data>(path: "/ndjson", query: ["count": "10", "badLine": "4"]))
            var seen = 0
            let error = await expectParleyError(.decoding) {
                for try await _ in streamed.body.jsonLines(of: Item.self) { seen += 1 }
            }
            #expect(seen == 4)
            #expect(error?.message.contains("Line 5") == true, "\(String(describing: error))")
            #expect(error?.bodyExcerpt?.contains("oops") == true)
        }
    }

    @Test("an unacceptable status fails stream() with the body excerpt, before any reading", arguments: TransportKind.allCases)
    func unacceptable(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.stream(Get<Data>(path: "/no-such-route"))
            }
            #expect(error?.status == .notFound)
        }
    }

    @Test("cancelling the task that reads a stream closes the connection", arguments: TransportKind.allCases)
    func cancellationClosesConnection(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let key = UUID().uuidString
            let firstChunk = AsyncStream.makeStream(of: Void.self)
            let reader = Task {
                let streamed = try await client.stream(Get<Data>(path: "/sse/forever", query: ["key": key]))
                for try await _ in streamed.body { firstChunk.continuation.yield() }
            }
            var chunks = firstChunk.stream.makeAsyncIterator()
            _ = await chunks.next()
            reader.cancel()
            let outcome = await reader.result
            #expect(throws: ParleyError.self) { try outcome.get() }
            let closed = try await client.send(Get<ClosedReport>(path: "/connections/closed", query: ["key": key]))
            #expect(closed.closed)
        }
    }

    /// The stream's idle limit (on by default) reads through a task of its own, one chunk ahead: leaving the loop
    /// must still stop that reading and close the connection, as dropping an unbounded body does.
    @Test("leaving the loop over a stream early closes the connection", arguments: TransportKind.allCases)
    func leavingLoopClosesConnection(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let key = UUID().uuidString
            let streamed = try await client.stream(Get<Data>(path: "/sse/forever", query: ["key": key]))
            for try await _ in streamed.body { break }
            let closed = try await client.send(Get<ClosedReport>(path: "/connections/closed", query: ["key": key]))
            #expect(closed.closed)
        }
    }

    /// On AsyncHTTPClient. URLSession's back-pressure (opt-in, since on Linux it holds every URLSession transfer of
    /// the process) is tested by `URLSessionBackPressureTests`, which `scripts/test` runs on its own.
    @Test("a reader that stops reading makes the server stop writing (back-pressure), far short of the body")
    func backPressure() async throws {
        try await withDemoClient(.asyncHTTPClient) { client, _ in
            let key = UUID().uuidString
            let total = 1 << 30
            let streamed = try await client.stream(Get<Data>(path: "/download", query: ["n": String(total), "key": key]))
            var chunks = streamed.body.makeAsyncIterator()
            _ = try await chunks.next()
            let written = try await client.send(Get<WrittenReport>(path: "/written", query: ["key": key]))
            #expect(written.blocked, "the server's writer was not seen suspended: \(written)")
            #expect(written.written < 64 << 20, "the server wrote \(written.written) bytes to a reader that took one chunk")
        }
    }
}

struct ClosedReport: Decodable, Sendable { let closed: Bool }
struct WrittenReport: Decodable, Sendable {
    let written: Int
    let queued: Int
    let blocked: Bool
    let state: String
}
