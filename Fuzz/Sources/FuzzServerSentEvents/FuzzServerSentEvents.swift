import FuzzSupport
import Parley

/// Fuzzes ``ServerSentEventParser``. The first input byte picks where the stream is cut in two, the second the
/// size limit; the rest is the stream. Properties:
/// - no crash, and the only failure is `bodyTooLarge`, exactly when a line or an event's data passes the limit;
/// - fed whole, cut in two, or a byte at a time, the parser dispatches the same events and ends with the same
///   last event ID and reconnection time;
/// - those equal a plain whole-input implementation of the WHATWG algorithm (``ReferenceEventStream``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerSentEvents(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    checkServerSentEvents(&input)
    return 0
}

struct Outcome: Equatable {
    var events: [ServerSentEvent]
    var failed: Bool
    var lastEventID: String
    var reconnectionTime: Duration?
}

func feed(_ chunks: [ArraySlice<UInt8>], maxEventSize: Int) -> Outcome {
    var parser = ServerSentEventParser(maxEventSize: maxEventSize, lastEventID: "start")
    var events: [ServerSentEvent] = []
    for chunk in chunks {
        do {
            events += try parser.parse(chunk)
        } catch {
            FuzzCheck.expect(error.kind == .bodyTooLarge, "the parser failed with \(error.kind), not bodyTooLarge")
            return Outcome(events: events, failed: true, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime)
        }
    }
    return Outcome(events: events, failed: false, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime)
}

func checkServerSentEvents(_ input: inout FuzzInput) {
    let cutByte = input.takeByte()
    let limitByte = input.takeByte()
    // Mostly the default limit; sometimes a small one, so the limit's edges get reached.
    let maxEventSize = limitByte & 0x80 != 0 ? Int(limitByte & 0x7F) + 1 : 8 << 20
    let stream = Array(input.bytes)
    let cut = Int(cutByte) * stream.count / 256

    let whole = feed([stream[...]], maxEventSize: maxEventSize)
    let split = feed([stream[..<cut], stream[cut...]], maxEventSize: maxEventSize)
    let reference = ReferenceEventStream(stream, maxEventSize: maxEventSize, lastEventID: "start")

    FuzzCheck.expect(whole.failed == reference.exceedsLimit, "failed: \(whole.failed), but the reference says the limit is exceeded: \(reference.exceedsLimit)")
    FuzzCheck.expect(split.failed == whole.failed, "cut at \(cut): failed \(split.failed), whole: failed \(whole.failed)")
    if stream.count <= 512 {
        let bytewise = feed(stream.indices.map { stream[$0...$0] }, maxEventSize: maxEventSize)
        FuzzCheck.expect(bytewise.failed == whole.failed, "byte by byte: failed \(bytewise.failed), whole: failed \(whole.failed)")
        if !whole.failed { FuzzCheck.expect(bytewise == whole, "byte by byte: \(bytewise)\nwhole: \(whole)") }
    }
    guard !whole.failed else { return }
    FuzzCheck.expect(split == whole, "cut at \(cut): \(split)\nwhole: \(whole)")
    let expected = reference.events.map { ServerSentEvent(type: $0.type, data: $0.data, lastEventID: $0.lastEventID) }
    FuzzCheck.expect(whole.events == expected, "events: \(whole.events)\nreference: \(expected)")
    FuzzCheck.expect(whole.lastEventID == reference.lastEventID, "lastEventID \(whole.lastEventID) vs reference \(reference.lastEventID)")
    FuzzCheck.expect(
        whole.reconnectionTime == reference.reconnectionMilliseconds.map { .milliseconds($0) },
        "reconnection time \(String(describing: whole.reconnectionTime)) vs reference \(String(describing: reference.reconnectionMilliseconds)) ms"
    )
    for event in whole.events {
        // Each scalar decodes from at least one byte of the line or data that the limit held.
        FuzzCheck.expect(event.data.unicodeScalars.count <= maxEventSize, "an event's data passed the limit \(maxEventSize)")
        FuzzCheck.expect(event.type.unicodeScalars.count <= maxEventSize, "an event type passed the limit \(maxEventSize)")
    }
}

@_cdecl("FuzzServerSentEvents_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzzServerSentEvents)
}
