import Parley
import Testing

@testable import ParleyTestSupport

extension ServerSentEventParserTests {
    @Test("at the end of the stream an unterminated event and line are dropped, and their id is not committed")
    func finishDropsIncompleteEvent() throws {
        #expect(
            try parseEvents("data: a\n\ndata: b\n")
                == SSEOutcome(events: [ServerSentEvent(data: "a")], lastEventID: "", reconnectionTime: nil)
        )
        #expect(try eventData("data: a\n\ndata: b") == ["a"])
        #expect(try parseEvents("id: 1\ndata: a\n\nid: 2\ndata: b\n").lastEventID == "1")
        #expect(try parseEvents("").events.isEmpty)
    }

    @Test("after finish the parser reads a new connection's stream: ids and retry kept, buffers and BOM handling reset")
    func finishStartsNewStream() throws {
        var parser = ServerSentEventParser()
        #expect(
            try parser.parse(Array("\u{FEFF}retry: 250\nid: 1\ndata: a\n\nid: 2\nevent: x\ndata: b\ndata: partial".utf8)).map(
                \.data
            ) == ["a"]
        )
        parser.finish()
        #expect(parser.lastEventID == "1")
        #expect(parser.reconnectionTime == .milliseconds(250))
        #expect(try parser.parse(Array("\u{FEFF}data: c\n\n".utf8)) == [ServerSentEvent(data: "c", lastEventID: "1")])
        parser.finish()
        // A CR that ended the previous connection does not swallow an LF starting the next.
        _ = try parser.parse(Array("data: d\r".utf8))
        parser.finish()
        #expect(try parser.parse(Array("\ndata: e\n\n".utf8)) == [ServerSentEvent(data: "e", lastEventID: "1")])
    }

    @Test("a parser can start from a saved last event ID")
    func initialLastEventID() throws {
        var parser = ServerSentEventParser(lastEventID: "41")
        #expect(try parser.parse(Array("data: a\n\nid: 42\ndata: b\n\n".utf8)).map(\.lastEventID) == ["41", "42"])
    }

    @Test("any collection of bytes can be parsed, contiguous or not")
    func anyCollection() throws {
        var parser = ServerSentEventParser()
        let bytes = Array("data: lazy\n\n".utf8)
        #expect(try parser.parse(bytes.lazy.map { $0 }) == [ServerSentEvent(data: "lazy")])
        #expect(try parser.parse(Array("xxdata: slice\n\n".utf8)[2...]) == [ServerSentEvent(data: "slice")])
    }

    @Test("a line longer than maxEventSize fails with bodyTooLarge, also when it never ends")
    func lineTooLong() throws {
        var exact = ServerSentEventParser(maxEventSize: 16)
        #expect(try exact.parse(Array("data: 0123456789\n\n".utf8)) == [ServerSentEvent(data: "0123456789")])
        var parser = ServerSentEventParser(maxEventSize: 16)
        _ = try parser.parse(Array("data: 01234".utf8))
        let error = #expect(throws: ParleyError.self) { try parser.parse(Array("567890".utf8)) }
        #expect(error?.kind == .bodyTooLarge)
        #expect(error?.message.contains("16 bytes") == true)
        var comment = ServerSentEventParser(maxEventSize: 16)
        #expect(throws: ParleyError.self) { try comment.parse(Array(repeating: UInt8(ascii: ":"), count: 17)) }
    }

    @Test("an event whose data grows past maxEventSize fails with bodyTooLarge")
    func eventTooLarge() throws {
        var parser = ServerSentEventParser(maxEventSize: 16)
        _ = try parser.parse(Array("data: 12345\ndata: 12345\n".utf8))  // 12 bytes buffered
        let error = #expect(throws: ParleyError.self) { try parser.parse(Array("data: 1234\n".utf8)) }
        #expect(error?.kind == .bodyTooLarge)
        var fits = ServerSentEventParser(maxEventSize: 16)
        #expect(try fits.parse(Array("data: 12345\ndata: 12345\ndata: 123\n\n".utf8)).map(\.data) == ["12345\n12345\n123"])
    }

    @Test("a large stream in small chunks parses in linear time")
    func largeStream() throws {
        let line = "data: " + String(repeating: "x", count: 1 << 20) + "\n\n"
        let stream = Array(String(repeating: line, count: 4).utf8)
        var parser = ServerSentEventParser()
        var count = 0
        var index = 0
        while index < stream.count {
            let end = min(index + 1000, stream.count)
            count += try parser.parse(stream[index..<end]).count
            index = end
        }
        #expect(count == 4)
    }
}
