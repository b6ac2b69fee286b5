import HTTPTypes
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A recorded exchange made ready to match requests and answer them.
struct ReplayExchange: Sendable {
    /// Its position in the fixture.
    let index: Int
    let request: ReplayRequest
    let response: HTTPResponse
    let responseBody: Fixture.Body?

    /// Checks the recorded header fields; an edited fixture with an invalid name fails here, not mid-test.
    init(index: Int, exchange: Fixture.Exchange) throws(ParleyError) {
        self.index = index
        let recorded = exchange.request
        request = ReplayRequest(
            method: recorded.method,
            target: RequestTarget(recorded.url).pathAndQuery,
            body: recorded.body?.bytes
        )
        var fields = HTTPFields()
        for field in exchange.response.headers {
            guard let name = HTTPField.Name(field.name) else {
                throw ParleyError(
                    .decoding,
                    "Exchange #\(index) of the fixture has a response header named \(String(reflecting: field.name)), "
                        + "which is not a valid field name. Fix the fixture or re-record it."
                )
            }
            fields.append(HTTPField(name: name, value: field.value))
        }
        let status = exchange.response.status
        guard (100...999).contains(status) else {
            throw ParleyError(.decoding, "Exchange #\(index) of the fixture has status \(status), which is not 100…999.")
        }
        response = HTTPResponse(status: .init(code: status, reasonPhrase: exchange.response.reason), headerFields: fields)
        responseBody = exchange.response.body
    }

    /// `#2 GET /users/1 → 200`.
    var summary: String { "#\(index) \(request.summary) → \(response.status.code)" }

    /// Why `incoming` does not match this exchange under `matching` (empty when it does).
    func reasons(against incoming: ReplayRequest, matching: ReplayTransport.Matching) -> [String] {
        var reasons: [String] = []
        if request.method != incoming.method { reasons.append("method \(request.method), not \(incoming.method)") }
        if request.path != incoming.path { reasons.append("path \(request.path), not \(incoming.path)") }
        if !ReplayRequest.queryMatches(recorded: request.query, sent: incoming.query, ordered: matching.queryOrderMatters) {
            let order = matching.queryOrderMatters ? " (query order matters)" : ""
            reasons.append("query \(request.queryText), not \(incoming.queryText)\(order)")
        }
        if matching.matchesBody, !ReplayRequest.bodyMatches(recorded: request.body, sent: incoming.body) {
            reasons.append("body \(ReplayRequest.excerpt(request.body)), not \(ReplayRequest.excerpt(incoming.body))")
        }
        return reasons
    }

    /// How far `reasons` put this exchange from the request: the path weighs most, then the method.
    static func distance(_ reasons: [String]) -> Int {
        reasons.reduce(0) { total, reason in
            total + (reason.hasPrefix("path ") ? 4 : reason.hasPrefix("method ") ? 2 : 1)
        }
    }
}
