import OpenAPIRuntime
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A copy of the bytes of one body, kept as they pass on their way to the reader, up to a limit.
///
/// Only the first iteration of the body is copied. When the body ends, fails, or is dropped before its end (the
/// tap's last reference goes away), `onFinish` runs once with the outcome; an error it returns is thrown to the
/// reader of the last chunk (a fixture that could not be saved).
final class BodyTap: Sendable {
    /// How a body's copy ended.
    enum Outcome: Sendable {
        /// Read to its end: every byte.
        case complete(Data)
        /// Dropped before its end: the bytes read.
        case incomplete(Data)
        /// The body failed, or was larger than the limit.
        case failed
    }

    private struct State {
        var bytes = Data()
        var claimed = false
        var ended = false
        var overflowed = false
        var finished = false
    }

    /// The most bytes copied; a larger body overflows.
    let limit: Int
    private let state = LockedState(State())
    private let onFinish: (@Sendable (Outcome) -> ParleyError?)?

    init(limit: Int, onFinish: (@Sendable (Outcome) -> ParleyError?)? = nil) {
        self.limit = limit
        self.onFinish = onFinish
    }

    deinit {
        let bytes = state.withLock { $0.finished ? nil : $0.bytes }
        if let bytes { _ = onFinish?(.incomplete(bytes)) }
    }

    /// Whether this iteration is the one to copy (the first).
    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    /// Copies `chunk`; `false` (and nothing more is kept) once the copy would pass ``limit``.
    func append(_ chunk: ArraySlice<UInt8>) -> Bool {
        state.withLock { state in
            guard !state.overflowed, state.bytes.count + chunk.count <= limit else {
                state.overflowed = true
                state.bytes = Data()
                return false
            }
            state.bytes.append(contentsOf: chunk)
            return true
        }
    }

    /// Ends the copy: complete when `ended` (the body reached its end), failed otherwise. Runs `onFinish` once.
    func finish(ended: Bool) -> ParleyError? {
        let outcome: Outcome? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            state.ended = ended
            return ended && !state.overflowed ? .complete(state.bytes) : .failed
        }
        guard let outcome else { return nil }
        return onFinish?(outcome)
    }

    /// A tap of `limit` bytes on a request body about to be sent, and the body to send in its place (`nil`s for none).
    static func tapping(_ body: HTTPBody?, limit: Int) -> (body: HTTPBody?, tap: BodyTap?) {
        guard let body else { return (nil, nil) }
        let tap = BodyTap(limit: limit)
        return (TappedBody.wrap(body, tap: tap), tap)
    }

    /// Fails with ``/Parley/ParleyError/Kind/bodyTooLarge`` when this request body (of `subject`, as `POST /x`) passed
    /// the limit, naming `recorder` and what was lost.
    func checkLimit(subject: String, recorder: String, lost: String) throws(ParleyError) {
        guard snapshot.overflowed else { return }
        throw ParleyError(
            .bodyTooLarge,
            "The request body of \(subject) is larger than the \(limit) bytes \(recorder) keeps of a body\(lost). "
                + "Raise its maxBodySize, or leave this call out."
        )
    }

    /// The bytes copied so far, whether the body was read to its end, and whether it passed the limit.
    var snapshot: (bytes: Data, ended: Bool, overflowed: Bool) {
        state.withLock { ($0.bytes, $0.ended, $0.overflowed) }
    }
}
