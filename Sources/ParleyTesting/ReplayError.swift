#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Why a ``ReplayTransport`` could not answer, or what a fixture left unused: the ``/Parley/ParleyError/underlying``
/// error of its failures, for tests that want the details rather than the message.
public struct ReplayError: Error, Sendable, CustomStringConvertible {
    /// A recorded exchange that came close to a request, and why it did not match.
    public struct Candidate: Sendable, Hashable, CustomStringConvertible {
        /// The exchange's position in the fixture, from 0.
        public let index: Int
        /// The recorded request, as `GET /users/1?page=2`.
        public let request: String
        /// Why it did not match, one reason per difference ("path /users/1, not /users/9").
        public let reasons: [String]

        /// `#1 GET /users/1: path /users/1, not /users/9`.
        public var description: String {
            "#\(index) \(request): \(reasons.joined(separator: "; "))"
        }
    }

    /// The request that found no match, as `GET /users/9`; `nil` for a fixture's unused exchanges.
    public let request: String?
    /// The closest recorded exchanges, best first, with why each did not match.
    public let candidates: [Candidate]
    /// For ``ReplayTransport/verifyAllUsed()``: the exchanges never used, as `#2 GET /users/3 → 200`.
    public let unused: [String]
    /// The fixture file, when the transport was loaded from one.
    public let fixture: URL?
    /// The full explanation (the message of the `ParleyError` carrying this error).
    public let description: String
}
