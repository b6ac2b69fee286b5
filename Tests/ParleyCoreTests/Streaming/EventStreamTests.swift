import Foundation
import HTTPTypes
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Server-Sent Events")
struct EventStreamTests {
    struct Ticks: Endpoint {
        typealias Response = Data
        var query: Query
        var path: Path { "/sse" }
    }

    /// `POST /sse/echo`: the server answers `bytes` as an event stream, `chunk` bytes per write.
    struct Echo: Endpoint {
        typealias Response = Data
        let bytes: [UInt8]
        let chunk: Int
        var method: HTTPRequest.Method { .post }
        var path: Path { "/sse/echo" }
        var query: Query { ["chunk": String(chunk)] }
        var body: RequestBody { .bytes(Data(bytes)) }
    }

    struct Stats: Decodable, Sendable {
        let connections: Int
        let lastEventIDs: [String]
    }

    @Test(
        "events arrive in order with type, data and id; a 204 after the last one ends the stream",
        arguments: TransportKind.allCases
    )
    func events(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            var events: [ServerSentEvent] = []
            let policy = ServerSentEventReconnectPolicy(initialDelay: .milliseconds(10))
            for try await event in client.events(Ticks(query: ["count": "5"]), reconnect: policy) { events.append(event) }
            #expect(events == (0..<5).map { ServerSentEvent(type: "tick", data: "{\"n\":\($0)}", lastEventID: String($0)) })
        }
    }

    @Test(
        "after a drop the stream reconnects with Last-Event-ID after the server's retry, losing and repeating nothing",
        arguments: TransportKind.allCases
    )
    func reconnect(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let key = UUID().uuidString
            // The default wait would be 3 s: finishing quickly shows that the server's `retry: 20` was honoured.
            let policy = ServerSentEventReconnectPolicy(initialDelay: .seconds(30), maxAttempts: 3)
            var ids: [String] = []
            let stream = client.events(
                Ticks(query: ["count": "7", "dropAfter": "3", "retry": "20", "key": key]),
                reconnect: policy
            )
            for try await event in stream { ids.append(event.lastEventID) }
            #expect(ids == (0..<7).map(String.init))
            let stats = try await client.send(Get<Stats>(path: "/sse/stats", query: ["key": key]))
            // Every reconnection named the last event received (none: ""), never an earlier one, the last one event
            // 6. (Where the connection broke depends on how many of the events written before the cut the server had
            // flushed, so the exact IDs vary.)
            let resumedFrom = stats.lastEventIDs.map { Int($0) ?? -1 }
            #expect(stats.lastEventIDs.first == "")
            #expect(
                resumedFrom.count >= 3 && resumedFrom == resumedFrom.sorted() && resumedFrom.last == 6,
                "\(stats.lastEventIDs)"
            )
        }
    }

    @Test("with reconnection off, a drop ends the stream", arguments: TransportKind.allCases)
    func never(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let key = UUID().uuidString
            var ids: [String] = []
            do {
                let stream = client.events(Ticks(query: ["count": "7", "dropAfter": "2", "key": key]), reconnect: .never)
                for try await event in stream { ids.append(event.lastEventID) }
            } catch let error as ParleyError {
                #expect(error.kind == .transport)
            }
            // The server wrote two events before the cut; the transport may not deliver the last ones it had.
            #expect(["0", "1"].starts(with: ids) && !ids.isEmpty, "\(ids)")
            let stats = try await client.send(Get<Stats>(path: "/sse/stats", query: ["key": key]))
            #expect(stats.connections == 1)
        }
    }

    @Test("a response that is not text/event-stream fails without reconnecting", arguments: TransportKind.allCases)
    func wrongContentType(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.validation) {
                for try await _ in client.events(Get<Data>(path: "/ndjson", query: ["count": "1"])) {}
            }
            #expect(error?.message.contains("text/event-stream") == true)
        }
    }

    /// Exact bytes through a real connection, written 1, 2, 3 and all bytes at a time.
    func echo(_ text: String, bytes prefix: [UInt8] = [], on transport: TransportKind) async throws -> [[ServerSentEvent]] {
        try await withDemoClient(transport) { client, _ in
            var results: [[ServerSentEvent]] = []
            let bytes = prefix + Array(text.utf8)
            for chunk in [1, 2, 3, bytes.count] {
                var events: [ServerSentEvent] = []
                for try await event in client.events(Echo(bytes: bytes, chunk: chunk), reconnect: .never) { events.append(event) }
                results.append(events)
            }
            return results
        }
    }

    @Test(
        "parsing rules through a real connection: CR, LF and CRLF line ends, a BOM, comments, multi-line data, id and event",
        arguments: TransportKind.allCases
    )
    func rules(_ transport: TransportKind) async throws {
        let text =
            ": comment\r\nevent: a\rdata: one\r\ndata:two\n\nid: 7\ndata\n\n:x\ndata: three\nevent\n\nretry: 5\nid\ndata:  four \n\ndata: dropped"
        let expected = [
            ServerSentEvent(type: "a", data: "one\ntwo", lastEventID: ""),
            ServerSentEvent(type: "message", data: "", lastEventID: "7"),
            ServerSentEvent(type: "message", data: "three", lastEventID: "7"),
            ServerSentEvent(type: "message", data: " four ", lastEventID: ""),
        ]
        for events in try await echo(text, bytes: [0xEF, 0xBB, 0xBF], on: transport) {
            #expect(events == expected)
        }
    }
}
