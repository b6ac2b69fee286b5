public import HTTPTypes
public import OpenAPIRuntime
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A transport that sends through a real one and records every exchange into a ``Fixture`` file, secrets
/// redacted, for a ``ReplayTransport`` to answer offline later.
///
/// ```swift
/// let fixture = URL(filePath: "Tests/Fixtures/users.json")
/// let recorder = RecordingTransport(wrapping: AsyncHTTPClientTransport.shared, fixture: fixture)
/// let client = Client(baseURL: liveServer, transport: recorder, middlewares: [.bearerAuth { _ in token }])
/// _ = try await client.send(GetUser(id: 1))          // sent to the server, and recorded
/// // later, offline:
/// let replay = try ReplayTransport(fixture: fixture)
/// ```
///
/// It records what the transport sees: the request after every middleware (auth headers, retries as separate
/// exchanges, each redirect hop) and the response before decompression and validation, so a replay goes through
/// the same middlewares and decoders and gets the same bytes.
///
/// **When the file is written.** With `savesAfterEachExchange` (the default) the whole fixture is rewritten
/// atomically each time an exchange ends, so the file is always a valid fixture of every exchange finished so far,
/// even if the test stops half way; otherwise only ``save()`` or ``write(to:)`` writes it. An exchange ends when
/// its response body has been read to the end, or dropped (then only the bytes read are kept, marked incomplete).
/// Exchanges are written in the order their requests were sent. A request that fails in the transport (refused
/// connection, reset) and a body that fails mid-way are not recorded.
///
/// **Streaming.** Bodies stream through as they arrive; the recorder keeps a copy of at most `maxBodySize` bytes
/// of each. A larger response body fails its reader with ``/Parley/ParleyError/Kind/bodyTooLarge`` (a larger request body
/// fails the call the same way) and is not recorded: a fixture never holds a silently cut body.
///
/// **Secrets.** Everything ``FixtureRedaction`` names is replaced by `<redacted>` before it is written, and so is
/// every occurrence of each string in `secrets` (in URLs, header values and text bodies). A secret the server sends
/// back in another encoding (base64, percent-encoded, inside a binary body) is not recognised: check the fixture's
/// diff before committing it.
public final class RecordingTransport: ShutdownTransport {
    /// The transport that talks to the real server.
    public let wrapped: any ClientTransport
    /// The fixture file.
    public let fixtureURL: URL
    /// The most bytes recorded of one body.
    public let maxBodySize: Int
    /// The default ``maxBodySize``: 16 MiB.
    public static let defaultMaxBodySize = 16 * 1024 * 1024
    /// Literal secrets, scrubbed out of everything recorded.
    let secrets: Redaction
    private let store: FixtureStore

    /// A recorder sending through `transport` and recording into the file at `fixture`.
    ///
    /// - Parameters:
    ///   - transport: the real transport.
    ///   - fixture: where the fixture is written (its folder is created if needed; an existing file is replaced).
    ///   - redaction: the header, query item and body member names whose values are redacted.
    ///   - secrets: literal values (tokens, passwords) to redact wherever they appear in text.
    ///   - maxBodySize: the most bytes recorded of one body.
    ///   - savesAfterEachExchange: whether to rewrite the file after each exchange, or only on ``save()``.
    public init(
        wrapping transport: any ClientTransport,
        fixture: URL,
        redaction: FixtureRedaction = FixtureRedaction(),
        secrets: [String] = [],
        maxBodySize: Int = RecordingTransport.defaultMaxBodySize,
        savesAfterEachExchange: Bool = true
    ) {
        self.wrapped = transport
        self.fixtureURL = fixture
        self.maxBodySize = maxBodySize
        self.secrets = Redaction(secrets)
        self.store = FixtureStore(redaction: redaction, autosave: savesAfterEachExchange ? fixture : nil)
    }

    /// The names whose values are redacted.
    public var redaction: FixtureRedaction { store.redaction }

    /// The exchanges recorded so far (redacted, as they are written), in the order their requests were sent.
    public var fixture: Fixture { store.fixture }

    /// Writes the exchanges recorded so far to ``fixtureURL``, atomically.
    public func save() throws(ParleyError) {
        try store.save(to: fixtureURL)
    }

    /// Writes the exchanges recorded so far to `url`, atomically.
    public func write(to url: URL) throws(ParleyError) {
        try store.save(to: url)
    }

    /// Shuts the wrapped transport down when it owns resources.
    public func shutdown() async throws {
        if let transport = wrapped as? any ShutdownTransport { try await transport.shutdown() }
    }

    /// Sends through the wrapped transport; the exchange is recorded once its response body has been read.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let slot = store.begin()
        let (sentBody, requestTap) = BodyTap.tapping(body, limit: maxBodySize)
        let (response, responseBody) = try await wrapped.send(request, body: sentBody, baseURL: baseURL, operationID: operationID)
        let url = RequestTarget.text(of: request, baseURL: baseURL)
        let subject = "\(request.method.rawValue) \(secrets.scrub(redaction.redacted(url: url)))"
        try requestTap?.checkLimit(subject: subject, recorder: "RecordingTransport", lost: "; the exchange was not recorded")
        let record: @Sendable (Fixture.Body?) -> ParleyError? = { [store] responseBody in
            let requestBody = requestTap?.snapshot
            let exchange = self.exchange(request, url: url, body: requestBody, response: response, responseBody: responseBody)
            return store.complete(slot, with: exchange)
        }
        guard let responseBody else {
            if let error = record(nil) { throw error }
            return (response, nil)
        }
        let responseTap = BodyTap(limit: maxBodySize) { outcome in
            switch outcome {
            case .complete(let bytes): record(Fixture.Body(bytes))
            case .incomplete(let bytes): record(Fixture.Body(bytes, isComplete: false))
            case .failed: nil
            }
        }
        return (response, TappedBody.wrap(responseBody, tap: responseTap, failsAsTooLarge: "The response body of \(subject)"))
    }
}
