import Parley
import Testing

@testable import ParleyTestSupport

/// What parsing a whole stream gave: the events, then the parser's state after `finish()`.
struct SSEOutcome: Equatable, CustomStringConvertible {
    var events: [ServerSentEvent]
    var lastEventID: String
    var reconnectionTime: Duration?
    var description: String {
        "\(events.map { "\($0.type)|\($0.data)|\($0.lastEventID)" }) id=\(lastEventID) retry=\(String(describing: reconnectionTime))"
    }
}

/// Every way these tests cut a stream into chunks: whole, byte by byte, in two at every position, and (for
/// short streams) in three at every pair of positions.
func everyChunking(of bytes: [UInt8]) -> [(name: String, chunks: [ArraySlice<UInt8>])] {
    let all = bytes[...]
    var result: [(String, [ArraySlice<UInt8>])] = [("whole", [all]), ("byte by byte", bytes.indices.map { all[$0...$0] })]
    for cut in 0...bytes.count {
        result.append(("cut at \(cut)", [all[..<cut], all[cut...]]))
    }
    if bytes.count <= 48 {
        for first in 0...bytes.count {
            for second in first...bytes.count {
                result.append(("cut at \(first), \(second)", [all[..<first], all[first..<second], all[second...]]))
            }
        }
    }
    return result
}

/// Parses `bytes` cut every way and checks they all agree; returns the outcome of the whole stream.
func parseEvents(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> SSEOutcome {
    var reference: SSEOutcome?
    for (name, chunks) in everyChunking(of: bytes) {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks { events += try parser.parse(chunk) }
        parser.finish()
        let outcome = SSEOutcome(events: events, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime)
        if let reference {
            #expect(outcome == reference, "fed \(name)", sourceLocation: sourceLocation)
        } else {
            reference = outcome
        }
    }
    return try #require(reference, sourceLocation: sourceLocation)
}

func parseEvents(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SSEOutcome {
    try parseEvents(Array(text.utf8), sourceLocation: sourceLocation)
}

func eventData(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    try parseEvents(text, sourceLocation: sourceLocation).events.map(\.data)
}

@Suite("ServerSentEventParser")
struct ServerSentEventParserTests {
    @Test("the standard's stock example: data lines join with line feeds")
    func stockExample() throws {
        #expect(try parseEvents("data: YHOO\ndata: +2\ndata: 10\n\n").events == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test("the standard's example with a comment, ids, and an unterminated last event")
    func commentsAndIDs() throws {
        let outcome = try parseEvents(
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"
        )
        #expect(
            outcome.events == [
                ServerSentEvent(data: "first event", lastEventID: "1"),
                ServerSentEvent(data: "second event", lastEventID: ""),
            ]
        )
        #expect(outcome.lastEventID == "")
    }

    @Test("the standard's example of data fields without values: an empty data buffer line still dispatches")
    func emptyDataFields() throws {
        #expect(try eventData("data\n\ndata\ndata\n\ndata:") == ["", "\n"])
    }

    @Test("the standard's example: one space after the colon is dropped, and only one")
    func leadingSpace() throws {
        #expect(try eventData("data:test\n\ndata: test\n\n") == ["test", "test"])
        #expect(try eventData("data:  two spaces\n\ndata:\ttab\n\ndata: a:b: c\n\n") == [" two spaces", "\ttab", "a:b: c"])
    }

    @Test("lines end with LF, CRLF or a lone CR, mixed freely", arguments: ["\n", "\r\n", "\r"])
    func lineEnds(end: String) throws {
        let stream = ["event: a", "data: 1", "data: 2", "", ": c", "data: 3", "", ""].joined(separator: end)
        #expect(try parseEvents(stream).events == [ServerSentEvent(type: "a", data: "1\n2"), ServerSentEvent(data: "3")])
        #expect(try eventData("data: a\rdata: b\r\ndata: c\n\r\n") == ["a\nb\nc"])
    }

    @Test("a CR ending one chunk and an LF starting the next are one line end, even with empty chunks between")
    func crLFAcrossChunks() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for chunk in ["data: a\r", "", "\n", "data: b\r", "\n\r", "", "\n"] { events += try parser.parse(Array(chunk.utf8)) }
        #expect(events == [ServerSentEvent(data: "a\nb")])
    }

    @Test("one leading byte order mark is dropped, also when split across chunks")
    func byteOrderMark() throws {
        #expect(try eventData("\u{FEFF}data: x\n\n") == ["x"])
        #expect(try eventData("\u{FEFF}\u{FEFF}data: x\n\ndata: y\n\n") == ["y"])  // the second BOM is content
        #expect(try eventData("data: a\n\n\u{FEFF}data: b\n\n") == ["a"])
        #expect(try eventData("data: \u{FEFF}x\n\n") == ["\u{FEFF}x"])
        #expect(try parseEvents([0xEF, 0xBB] + Array("\ndata: x\n\n".utf8)).events.map(\.data) == ["x"])
        #expect(try parseEvents([0xEF, 0xBB] + Array("data: x\n\n".utf8)).events.isEmpty)  // field "\u{FFFD}\u{FFFD}data"
    }

    @Test("comment lines are ignored, and a block of only comments dispatches nothing")
    func comments() throws {
        #expect(try eventData(": hello\ndata: a\n:another\n\n: ping\n\n") == ["a"])
    }

    @Test("a line without a colon is a field with an empty value")
    func fieldWithoutColon() throws {
        #expect(try eventData("data\ndata: x\ndata\n\n") == ["\nx\n"])
        #expect(try parseEvents("event: a\nevent\ndata: x\n\n").events == [ServerSentEvent(type: "message", data: "x")])
    }

    @Test("the event type applies to one event and is reset after it, and after a dispatch without data")
    func eventTypeReset() throws {
        #expect(
            try parseEvents("event: add\ndata: 1\n\ndata: 2\n\nevent: gone\n\ndata: 3\n\n").events == [
                ServerSentEvent(type: "add", data: "1"), ServerSentEvent(data: "2"), ServerSentEvent(data: "3"),
            ]
        )
    }

    @Test("field names are case-sensitive, and unknown fields are ignored")
    func fieldNames() throws {
        #expect(
            try parseEvents("Data: x\n\nDATA: y\n\nEvent: z\nID: 3\nRetry: 5\nfoo: bar\ndata: w\n\n")
                == SSEOutcome(
                    events: [ServerSentEvent(data: "w")],
                    lastEventID: "",
                    reconnectionTime: nil
                )
        )
    }

    @Test("the last event ID persists across events until an id field changes or resets it")
    func lastEventIDPersists() throws {
        #expect(
            try parseEvents("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\ndata: d\n\n").events.map(\.lastEventID) == [
                "1", "1", "", "2",
            ]
        )
        #expect(try parseEvents("data: a\nid: 9\n\n").events == [ServerSentEvent(data: "a", lastEventID: "9")])
    }

    @Test("an id containing NULL is ignored")
    func idWithNull() throws {
        let outcome = try parseEvents("id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\n")
        #expect(outcome.events.map(\.lastEventID) == ["1", "1"])
        #expect(outcome.lastEventID == "1")
    }

    @Test("an event without data commits its id but dispatches nothing")
    func dataLessEventCommitsID() throws {
        #expect(try parseEvents("id: 7\n\n") == SSEOutcome(events: [], lastEventID: "7", reconnectionTime: nil))
        #expect(try parseEvents("id: 7\nevent: x\n\ndata: y\n\n").events == [ServerSentEvent(data: "y", lastEventID: "7")])
    }

    @Test("retry sets the reconnection time when its value is only ASCII digits, and is ignored otherwise")
    func retry() throws {
        #expect(try parseEvents("retry: 1500\n").reconnectionTime == .milliseconds(1500))
        #expect(try parseEvents("retry: 0\n").reconnectionTime == .zero)
        let ignored = [
            "retry: 1.5", "retry: abc", "retry:", "retry", "retry: -1", "retry:  20", "retry: 20 ", "retry: +3", "retry: ١٢",
        ]
        #expect(try parseEvents("retry: 1500\n" + ignored.joined(separator: "\n") + "\n").reconnectionTime == .milliseconds(1500))
        #expect(try parseEvents("retry: 99999999999999999999999\n").reconnectionTime == .milliseconds(Int64.max))
    }

    @Test("invalid UTF-8 decodes with replacement characters; characters split across chunks stay whole")
    func utf8() throws {
        #expect(
            try parseEvents(Array("data: ".utf8) + [0xFF, 0xC3] + Array("ok\n\n".utf8)).events.map(\.data) == [
                "\u{FFFD}\u{FFFD}ok"
            ]
        )
        #expect(
            try parseEvents("event: ünïcödé\nid: 😀\ndata: héllo 😀 世界\n\n").events == [
                ServerSentEvent(type: "ünïcödé", data: "héllo 😀 世界", lastEventID: "😀")
            ]
        )
    }
}
