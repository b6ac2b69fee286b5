import Testing

@testable import ParleyURLSession

/// The bounds on what a streamed URLSession response holds by default: unread bytes (64 MiB) and delegate events
/// still queued (256, each holding a curl write of up to 16 KiB; they were not bounded, so a 1 GiB download into a
/// file peaked at ~200 MiB although its reader kept up).
@Suite("URLSession response gate")
struct ResponseGateTests {
    @Test("by default the gate holds once 64 MiB are unread, until the reader is down to 32 MiB")
    func unreadBytes() {
        let gate = ResponseGate(backPressure: false)
        gate.received((64 << 20) - 1)
        #expect(!gate.wouldHold)
        gate.received(1)
        #expect(gate.wouldHold)
        gate.consumed(16 << 20)
        #expect(gate.wouldHold, "48 MiB unread: still above the low-water mark")
        gate.consumed(16 << 20)
        #expect(!gate.wouldHold)
    }

    @Test("by default the gate holds once 256 events (4 MiB of curl writes) wait for the delegate queue")
    func queuedEvents() {
        let gate = ResponseGate(backPressure: false)
        for _ in 0..<255 { gate.admit() }
        #expect(!gate.wouldHold)
        gate.admit()
        #expect(gate.wouldHold)
        gate.ran()
        #expect(!gate.wouldHold)
    }

    @Test("a gate opened for good (body dropped, task cancelled) never holds")
    func opened() {
        let gate = ResponseGate(backPressure: false)
        gate.received(128 << 20)
        gate.open()
        #expect(!gate.wouldHold)
    }
}
