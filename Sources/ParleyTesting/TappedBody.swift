import OpenAPIRuntime
import Parley

/// Copies a body into a ``BodyTap`` as it streams on to its reader chunk by chunk (a `BodyWatcher`).
struct TappedBody: BodyWatcher {
    let tap: BodyTap
    /// What the body is, for the error when it passes the tap's limit ("the response body of GET /x"); `nil` to
    /// stream on regardless and let the owner check ``BodyTap/snapshot``.
    let failsAsTooLarge: String?

    /// `base` watched so that `tap` copies it; its length and replayability are kept.
    static func wrap(_ base: HTTPBody, tap: BodyTap, failsAsTooLarge: String? = nil) -> HTTPBody {
        base.watched(by: TappedBody(tap: tap, failsAsTooLarge: failsAsTooLarge))
    }

    /// The tap, for the one reading that claims it (a replayed body is copied once).
    func startReading(of body: HTTPBody) -> BodyTap? { tap.claim() ? tap : nil }

    func didRead(_ chunk: ArraySlice<UInt8>, _ reading: inout BodyTap?) throws {
        // Past the limit, the tap keeps nothing more, and reports a failed copy when the body ends.
        guard let tap = reading, !tap.append(chunk), let subject = failsAsTooLarge else { return }
        reading = nil
        _ = tap.finish(ended: false)
        throw ParleyError(
            .bodyTooLarge,
            "\(subject) is larger than the \(tap.limit) bytes the recorder keeps of a body; it was not recorded "
                + "(a fixture never holds a cut body). Raise maxBodySize, or leave this call out of the recording."
        )
    }

    func didFinish(_ reading: inout BodyTap?) throws {
        guard let tap = reading else { return }
        reading = nil
        if let error = tap.finish(ended: true) { throw error }
    }

    func didFail(_ error: any Error, _ reading: inout BodyTap?) {
        _ = reading?.finish(ended: false)
    }
}
