/// A deliberately plain, whole-input implementation of the WHATWG "event stream interpretation", written from the
/// standard's text, to check the incremental ``ServerSentEventParser`` against.
struct ReferenceEventStream {
    struct Event: Equatable {
        var type: String
        var data: String
        var lastEventID: String
    }

    var events: [Event] = []
    var lastEventID: String
    var reconnectionMilliseconds: Int64?
    /// Whether a line (terminated or not) or an event's data reaches past `maxEventSize`.
    var exceedsLimit = false

    init(_ input: [UInt8], maxEventSize: Int, lastEventID: String = "") {
        self.lastEventID = lastEventID
        var stream = input[...]
        if stream.starts(with: [0xEF, 0xBB, 0xBF]) { stream = stream.dropFirst(3) }
        // Lines end at CRLF, LF or CR; the bytes after the last line end are an unfinished line.
        var lines: [ArraySlice<UInt8>] = []
        var start = stream.startIndex
        var index = stream.startIndex
        while index < stream.endIndex {
            let byte = stream[index]
            if byte == 0x0A || byte == 0x0D {
                lines.append(stream[start..<index])
                if byte == 0x0D, index + 1 < stream.endIndex, stream[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        // An unfinished line longer than the limit counts, except a stream that so far is only the start of a BOM:
        // the parser holds those (at most two) bytes until it knows whether they are content.
        let partialBOM = input.count < 3 && [0xEF, 0xBB, 0xBF].starts(with: input)
        if stream.endIndex - start > maxEventSize, !partialBOM { exceedsLimit = true }
        var data: [UInt8] = []
        var eventType: [UInt8] = []
        var idBuffer = Array(lastEventID.utf8)
        for line in lines {
            if line.count > maxEventSize { exceedsLimit = true }
            if line.isEmpty {
                // Dispatch.
                self.lastEventID = String(decoding: idBuffer, as: UTF8.self)
                if data.isEmpty {
                    eventType = []
                    continue
                }
                if data.last == 0x0A { data.removeLast() }
                events.append(
                    Event(
                        type: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
                        data: String(decoding: data, as: UTF8.self),
                        lastEventID: self.lastEventID
                    )
                )
                data = []
                eventType = []
                continue
            }
            if line.first == 0x3A { continue }  // comment
            let field: ArraySlice<UInt8>
            var value: ArraySlice<UInt8>
            if let colon = line.firstIndex(of: 0x3A) {
                field = line[..<colon]
                value = line[(colon + 1)...]
                if value.first == 0x20 { value = value.dropFirst() }
            } else {
                field = line
                value = []
            }
            if field.elementsEqual("event".utf8) {
                eventType = Array(value)
            } else if field.elementsEqual("data".utf8) {
                data += value
                data.append(0x0A)
                if data.count > maxEventSize { exceedsLimit = true }
            } else if field.elementsEqual("id".utf8) {
                if !value.contains(0) { idBuffer = Array(value) }
            } else if field.elementsEqual("retry".utf8), !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                var total: Int64? = 0
                for digit in value {
                    total = total.flatMap { current in
                        let (times10, o1) = current.multipliedReportingOverflow(by: 10)
                        let (sum, o2) = times10.addingReportingOverflow(Int64(digit - 0x30))
                        return o1 || o2 ? nil : sum
                    }
                }
                reconnectionMilliseconds = total ?? .max
            }
        }
    }
}
