package import HTTPTypes

/// A middleware that also hears of the failures a client finds after the response has left the middleware chain:
/// a status its endpoint does not accept, a body that does not decode, a validator that rejects it.
///
/// A middleware only sees what passes through it, so these three kinds (``ParleyError/Kind/unacceptableStatus``,
/// ``ParleyError/Kind/decoding``, ``ParleyError/Kind/validation``) never reach it. The client tells every
/// middleware of its chain that adopts this protocol, once per failed call, after the exchange is over.
package protocol CallOutcomeObserver: Sendable {
    /// Called when the call to `endpoint` (its ``Endpoint/name``) failed with `error` after the chain; `request` is
    /// the request as the client built it, before the middlewares.
    func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String)
}

extension Client {
    /// The kinds of failure that arise only above the middleware chain, after a response came back through it.
    static func arisesAfterChain(_ kind: ParleyError.Kind) -> Bool {
        kind == .unacceptableStatus || kind == .decoding || kind == .validation
    }

    /// Tells the observing middlewares that the call failed with `error` after the chain returned its response.
    func reportFailureAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) {
        guard Self.arisesAfterChain(error.kind) else { return }
        for case let observer as any CallOutcomeObserver in middlewares {
            observer.callFailedAfterChain(error, request: request, endpoint: endpoint)
        }
    }
}
