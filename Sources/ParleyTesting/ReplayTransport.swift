public import HTTPTypes
public import OpenAPIRuntime
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A transport that answers offline from a ``Fixture`` recorded by a ``RecordingTransport``: the recorded status,
/// header fields (in order) and body bytes, exactly.
///
/// ```swift
/// let replay = try ReplayTransport(fixture: URL(filePath: "Tests/Fixtures/users.json"))
/// let client = Client(baseURL: URL(string: "http://127.0.0.1:8080")!, transport: replay,
///                     middlewares: [.bearerAuth { _ in AccessToken("any") }])
/// let user = try await client.send(GetUser(id: 1))
/// try replay.verifyAllUsed()
/// ```
///
/// Requests match on method, URL path and query items (see ``Matching``), never on scheme, host, port or header
/// fields, so the base URL may differ from the recording's and credentials redacted in the fixture do not matter.
/// A recorded `<redacted>` query value or JSON member matches any value. Each exchange answers once, so repeated
/// requests (a retry after a 503) get their recorded answers in turn.
///
/// A request that matches nothing fails with ``/Parley/ParleyError/Kind/transport`` whose message names the request, the
/// closest recorded exchanges with why each did not match, and how to re-record; its
/// ``/Parley/ParleyError/underlying`` is a ``ReplayError`` with the same details.
public final class ReplayTransport: ClientTransport {
    /// The fixture being replayed.
    public let fixture: Fixture
    /// The file it was read from, if any.
    public let fixtureURL: URL?
    /// How requests are matched.
    public let matching: Matching
    let exchanges: [ReplayExchange]
    /// Which exchanges have answered.
    let used: LockedState<[Bool]>

    /// A replay of the fixture file at `url`; fails with ``/Parley/ParleyError/Kind/decoding`` when it cannot be read.
    public convenience init(fixture url: URL, matching: Matching = Matching()) throws(ParleyError) {
        try self.init(try Fixture(contentsOf: url), matching: matching, source: url)
    }

    /// A replay of `fixture`; `source` names its file in messages. Fails with ``/Parley/ParleyError/Kind/decoding`` when
    /// a recorded response has an invalid header name or status.
    public init(_ fixture: Fixture, matching: Matching = Matching(), source: URL? = nil) throws(ParleyError) {
        var exchanges: [ReplayExchange] = []
        for (index, exchange) in fixture.exchanges.enumerated() {
            exchanges.append(try ReplayExchange(index: index, exchange: exchange))
        }
        self.fixture = fixture
        self.fixtureURL = source
        self.matching = matching
        self.exchanges = exchanges
        self.used = LockedState(Array(repeating: false, count: exchanges.count))
    }

    /// The recorded exchanges that have not answered a request yet, in recorded order.
    public var unusedExchanges: [Fixture.Exchange] {
        let used = self.used.withLock { $0 }
        return fixture.exchanges.indices.filter { !used[$0] }.map { fixture.exchanges[$0] }
    }

    /// Fails with ``/Parley/ParleyError/Kind/validation`` listing the exchanges that never answered: the code under test
    /// no longer sends those requests, so the fixture is stale.
    public func verifyAllUsed() throws(ParleyError) {
        let used = self.used.withLock { $0 }
        let unused = exchanges.filter { !used[$0.index] }.map(\.summary)
        guard !unused.isEmpty else { return }
        let message =
            "ReplayTransport did not use \(unused.count) of the \(exchanges.count) recorded exchanges"
            + "\(fixtureURL.map { " of \($0.path)" } ?? ""):\n" + unused.map { "  \($0)" }.joined(separator: "\n")
            + "\nThe code under test no longer sends these requests: re-record the fixture, or remove them from it."
        let error = ReplayError(request: nil, candidates: [], unused: unused, fixture: fixtureURL, description: message)
        throw ParleyError(.validation, multilineMessage: message, underlying: error)
    }

    /// Answers `request` with the recorded response of the exchange it matches.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var sent: Data?
        if let body {
            if matching.matchesBody {
                sent = try await Self.collect(body)
            } else {
                for try await _ in body {}
            }
        }
        try Task.checkCancellation()
        let contentType = request.headerFields[.contentType]
        let incoming = ReplayRequest(
            method: request.method.rawValue,
            target: request.path ?? "/",
            body: sent.map { fixture.redaction.redacted(body: $0, contentType: contentType) }
        )
        let exchange = try select(incoming)
        let responseBody = exchange.responseBody.map { ReplayBody.make($0, of: exchange, fixture: fixtureURL) }
        return (exchange.response, responseBody)
    }

    private static func collect(_ body: HTTPBody) async throws -> Data {
        do {
            return try await Data(collecting: body, upTo: RecordingTransport.defaultMaxBodySize)
        } catch {
            throw ParleyError.wrapping(
                error,
                as: .bodyTooLarge,
                "ReplayTransport compares request bodies of up to \(RecordingTransport.defaultMaxBodySize) bytes: \(error)"
            )
        }
    }
}
