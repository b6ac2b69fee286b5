import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The exchanges a ``RecordingTransport`` has recorded, in the order their requests were sent, and their file.
final class FixtureStore: Sendable {
    private struct State {
        /// The slot of the next request.
        var nextSlot = 0
        /// Finished exchanges by slot; a slot whose response is still being read has none yet.
        var exchanges: [Int: Fixture.Exchange] = [:]
    }

    let redaction: FixtureRedaction
    /// Where the fixture is saved after each exchange, or `nil` to save only when asked.
    let autosave: URL?
    private let state = LockedState(State())

    init(redaction: FixtureRedaction, autosave: URL?) {
        self.redaction = redaction
        self.autosave = autosave
    }

    /// Reserves the place of a request being sent.
    func begin() -> Int {
        state.withLock { state in
            defer { state.nextSlot += 1 }
            return state.nextSlot
        }
    }

    /// Adds the exchange of `slot`, and saves when autosaving; a failure to save is returned.
    func complete(_ slot: Int, with exchange: Fixture.Exchange) -> ParleyError? {
        state.withLock { state -> ParleyError? in
            state.exchanges[slot] = exchange
            guard let autosave else { return nil }
            do throws(ParleyError) {
                try Self.fixture(state, redaction: redaction).write(to: autosave)
                return nil
            } catch {
                return error
            }
        }
    }

    /// The finished exchanges, in the order their requests were sent.
    var fixture: Fixture {
        state.withLock { Self.fixture($0, redaction: redaction) }
    }

    /// Writes the finished exchanges to `url` (under the lock, so that saves never overtake one another).
    func save(to url: URL) throws(ParleyError) {
        try state.withLock { state throws(ParleyError) in
            try Self.fixture(state, redaction: redaction).write(to: url)
        }
    }

    private static func fixture(_ state: State, redaction: FixtureRedaction) -> Fixture {
        Fixture(exchanges: state.exchanges.sorted { $0.key < $1.key }.map(\.value), redaction: redaction)
    }
}
