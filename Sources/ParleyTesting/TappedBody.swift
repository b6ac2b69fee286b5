import OpenAPIRuntime
import Parley

/// A body that streams on to its reader chunk by chunk while a ``BodyTap`` keeps a copy.
struct TappedBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let base: HTTPBody
    let tap: BodyTap
    /// What the body is, for the error when it passes the tap's limit ("the response body of GET /x"); `nil` to
    /// stream on regardless and let the owner check ``BodyTap/snapshot``.
    let failsAsTooLarge: String?

    /// `base` wrapped so that `tap` copies it; its length and replayability are kept.
    static func wrap(_ base: HTTPBody, tap: BodyTap, failsAsTooLarge: String? = nil) -> HTTPBody {
        HTTPBody(
            TappedBody(base: base, tap: tap, failsAsTooLarge: failsAsTooLarge),
            length: base.length,
            iterationBehavior: base.iterationBehavior
        )
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), tap: tap.claim() ? tap : nil, failsAsTooLarge: failsAsTooLarge)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        var tap: BodyTap?
        let failsAsTooLarge: String?

        mutating func next() async throws -> Element? {
            let chunk: Element?
            do {
                chunk = try await base.next()
            } catch {
                _ = tap?.finish(ended: false)
                throw error
            }
            guard let tap else { return chunk }
            guard let chunk else {
                self.tap = nil
                if let error = tap.finish(ended: true) { throw error }
                return nil
            }
            if !tap.append(chunk), let subject = failsAsTooLarge {
                self.tap = nil
                _ = tap.finish(ended: false)
                throw ParleyError(
                    .bodyTooLarge,
                    "\(subject) is larger than the \(tap.limit) bytes the recorder keeps of a body; it was not recorded "
                        + "(a fixture never holds a cut body). Raise maxBodySize, or leave this call out of the recording."
                )
            }
            return chunk
        }
    }
}
