/// An incremental parser of the `text/event-stream` format (Server-Sent Events), following the WHATWG HTML
/// standard's "event stream interpretation" exactly.
///
/// Feed it the body's bytes as they arrive, in chunks of any size split anywhere; it returns the events
/// each chunk completed. It handles a leading byte order mark, `CRLF`, `LF` and lone `CR` line ends (also
/// when a `CR` and its `LF` arrive in different chunks), comments, `event`, `data` (several lines joined
/// with line feeds), `id` and `retry` fields, and decodes invalid UTF-8 with replacement characters.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body {
///     for event in try parser.parse(chunk) { handle(event) }
/// }
/// parser.finish()   // the connection ended: reconnect sending `Last-Event-ID: \(parser.lastEventID)`
/// ```
///
/// The work is linear in the input: every byte is looked at once.
public struct ServerSentEventParser: Sendable {
    /// The most bytes a line, or the data of one event, may hold.
    public let maxEventSize: Int
    /// The committed last event ID: the `id` in force at the last dispatched (or data-less) event. This is
    /// what a reconnection sends as `Last-Event-ID`.
    public private(set) var lastEventID: String
    /// The reconnection time of the last valid `retry` field, or `nil` when the server sent none.
    public private(set) var reconnectionTime: Duration?

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var lastEventIDBuffer: String
    /// The stream's last byte was a CR, so an LF starting the next chunk ends no line.
    private var afterCR = false
    /// How many bytes of a leading BOM have been matched; `nil` once the stream's start is past.
    private var bomMatched: Int? = 0

    /// A parser for a new stream.
    ///
    /// - Parameters:
    ///   - maxEventSize: The most bytes a line, or the data of one event, may hold; more fails with
    ///     ``ParleyError/Kind/bodyTooLarge`` (a stream that never ends a line cannot exhaust memory).
    ///   - lastEventID: The last event ID to start from, such as one saved from an earlier session.
    public init(maxEventSize: Int = 8 << 20, lastEventID: String = "") {
        self.maxEventSize = max(maxEventSize, 1)
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = lastEventID
    }

    /// Parses the next bytes of the stream and returns the events they complete, in order.
    ///
    /// - Throws: ``ParleyError/Kind/bodyTooLarge`` when a line or an event's data grows past
    ///   ``maxEventSize``. The stream cannot be parsed further; call ``finish()`` before a new connection.
    public mutating func parse(_ bytes: some Collection<UInt8>) throws(ParleyError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        let fast = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ParleyError) in try consume(buffer, into: &events) }
        }
        if let fast {
            try fast.get()
        } else {
            let copy = Array(bytes)
            try copy.withUnsafeBufferPointer { buffer in
                Result { () throws(ParleyError) in try consume(buffer, into: &events) }
            }.get()
        }
        return events
    }

    /// Ends the stream (the connection closed): an unterminated line and an undispatched event are
    /// dropped, as the standard says. ``lastEventID`` and ``reconnectionTime`` are kept, and the parser is
    /// ready for the stream of a new connection (which may start with a byte order mark again).
    public mutating func finish() {
        line.removeAll(keepingCapacity: true)
        data.removeAll(keepingCapacity: true)
        eventType.removeAll()
        lastEventIDBuffer = lastEventID
        afterCR = false
        bomMatched = 0
    }

    private mutating func consume(_ buffer: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) throws(ParleyError)
    {
        var index = 0
        if let matched = bomMatched {
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            var count = matched
            while count < 3, index < buffer.count, buffer[index] == bom[count] {
                count += 1
                index += 1
            }
            if count == 3 {
                bomMatched = nil
            } else if index == buffer.count {
                bomMatched = count  // the chunk ended inside what may still be a BOM
                return
            } else {
                bomMatched = nil  // not a BOM after all: the bytes matched so far are content
                line.append(contentsOf: bom[..<count])
            }
        }
        if afterCR, index < buffer.count {
            afterCR = false
            if buffer[index] == .lineFeed { index += 1 }
        }
        while index < buffer.count {
            var end = index
            while end < buffer.count, buffer[end] != .lineFeed, buffer[end] != .carriageReturn { end += 1 }
            let piece = UnsafeBufferPointer(rebasing: buffer[index..<end])
            guard line.count + piece.count <= maxEventSize else { throw tooLarge("A line") }
            guard end < buffer.count else {
                line.append(contentsOf: piece)
                return
            }
            if line.isEmpty {
                try interpret(piece, into: &events)
            } else {
                line.append(contentsOf: piece)
                var whole: [UInt8] = []
                swap(&whole, &line)
                try whole.withUnsafeBufferPointer { whole throws(ParleyError) in try interpret(whole, into: &events) }
                whole.removeAll(keepingCapacity: true)
                swap(&whole, &line)
            }
            if buffer[end] == .carriageReturn {
                if end + 1 == buffer.count {
                    afterCR = true
                } else if buffer[end + 1] == .lineFeed {
                    end += 1
                }
            }
            index = end + 1
        }
    }

    private mutating func interpret(_ line: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) throws(ParleyError)
    {
        guard let first = line.first else { return dispatch(into: &events) }
        if first == .colon { return }  // a comment
        let colon = line.firstIndex(of: .colon) ?? line.endIndex
        let name = line[..<colon]
        var valueStart = colon == line.endIndex ? colon : colon + 1
        if valueStart < line.endIndex, line[valueStart] == .space { valueStart += 1 }
        let value = line[valueStart...]
        if name.elementsEqual("data".utf8) {
            guard data.count + value.count + 1 <= maxEventSize else { throw tooLarge("An event's data") }
            data.append(contentsOf: value)
            data.append(.lineFeed)
        } else if name.elementsEqual("event".utf8) {
            eventType = Array(value)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("retry".utf8) {
            guard !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return }
            var milliseconds: Int64 = 0
            for digit in value {
                let (times10, overflow1) = milliseconds.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit - 0x30))
                guard !overflow1, !overflow2 else {
                    milliseconds = .max  // absurdly long: the longest representable time
                    break
                }
                milliseconds = sum
            }
            reconnectionTime = .milliseconds(milliseconds)
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = lastEventIDBuffer
        guard !data.isEmpty else {
            eventType.removeAll()
            return
        }
        let text = String(decoding: data.dropLast(), as: UTF8.self)  // without the last line feed
        let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
        events.append(ServerSentEvent(type: type, data: text, lastEventID: lastEventID))
        data.removeAll(keepingCapacity: true)
        eventType.removeAll()
    }

    private func tooLarge(_ what: String) -> ParleyError {
        ParleyError(
            .bodyTooLarge,
            "\(what) of the event stream is longer than the limit of \(maxEventSize) bytes (maxEventSize). "
                + "Raise the limit if the server's events are this large; otherwise the stream is broken."
        )
    }
}
