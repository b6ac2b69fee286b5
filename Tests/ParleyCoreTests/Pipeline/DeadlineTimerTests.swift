import Foundation
import Testing

@testable import Parley

private struct DeadlinePassed: Error {}

/// The one timer heap behind every `Deadline`: actions run once their deadline has passed, in deadline order, and a
/// cancelled one never runs.
@Suite("DeadlineTimer: one heap of deadlines for the process", .timeLimit(.minutes(1)))
struct DeadlineTimerTests {
    @Test("actions run after their deadlines, in order; cancelled ones never run")
    func orderAndCancellation() async throws {
        let timer = DeadlineTimer()
        let start = ContinuousClock.now
        let (fired, continuation) = AsyncStream<(index: Int, at: ContinuousClock.Instant)>.makeStream()
        var deadlines: [ContinuousClock.Instant] = []
        var tokens: [DeadlineTimer.Token] = []
        // 400 deadlines between 20 and 420 ms from now, scheduled out of order.
        for index in 0..<400 {
            let deadline = start + .milliseconds(20 + (index * 37) % 400)
            deadlines.append(deadline)
            tokens.append(timer.schedule(at: deadline) { continuation.yield((index, .now)) })
        }
        // Every other one taken back, from the middle of the heap as much as from its top.
        for index in stride(from: 1, to: 400, by: 2) { timer.cancel(tokens[index]) }
        var seen: [Int] = []
        for await event in fired {
            #expect(event.at >= deadlines[event.index], "fired \(event.index) early")
            seen.append(event.index)
            if seen.count == 200 { break }
        }
        #expect(Set(seen) == Set(stride(from: 0, to: 400, by: 2)))
        #expect(seen.map { deadlines[$0] } == seen.map { deadlines[$0] }.sorted())
        // Nothing cancelled runs later: one more deadline after the last cancelled one, and only it arrives.
        _ = timer.schedule(at: .now + .milliseconds(50)) { continuation.yield((-1, .now)) }
        for await event in fired {
            #expect(event.index == -1)
            break
        }
    }

    /// The timer sleeps until its earliest deadline; one scheduled earlier than that wakes it.
    @Test("a deadline earlier than every scheduled one wakes the timer")
    func earlierDeadlineWakes() async throws {
        let timer = DeadlineTimer()
        let far = timer.schedule(at: .now + .seconds(30)) {}
        let started = ContinuousClock.now
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = timer.schedule(at: .now + .milliseconds(20)) { done.resume() }
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        timer.cancel(far)
    }

    /// Deadline.run takes its deadline back when the operation ends first: a busy client leaves no timer behind.
    @Test("Deadline.run leaves no deadline in the heap once the operation has ended")
    func runTakesItsDeadlineBack() async throws {
        let timer = DeadlineTimer()
        for _ in 0..<1_000 {
            let value = try await Deadline.run(within: .seconds(60), timer: timer, expired: { CancellationError() }) { 42 }
            #expect(value == 42)
        }
        #expect(timer.scheduledCount == 0)
        // A deadline that passes still cancels the operation and fails the call with the deadline's error.
        let started = ContinuousClock.now
        await #expect(throws: DeadlinePassed.self) {
            // An operation that ends only when cancelled: a signal that never fires.
            try await Deadline.run(within: .milliseconds(20), timer: timer, expired: { DeadlinePassed() }) {
                await Deadline.Signal().wait()
            }
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(timer.scheduledCount == 0)
    }
}
