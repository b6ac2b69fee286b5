public import HTTPTypes
public import OpenAPIRuntime
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A transport wrapper that keeps every request the transport receives: after all middlewares, so the header
/// fields auth added, each retry and each redirect hop appear as the server saw them, in order.
///
/// <doc:TestingWithParleyTesting#Record-the-requests-of-a-real-transport> shows a recorder around a retrying client's
/// transport, and its requests checked attempt by attempt.
///
/// Request bodies stream on to the transport while a copy of at most `maxBodySize` bytes is kept; a larger body
/// fails the call with ``/Parley/ParleyError/Kind/bodyTooLarge`` once the transport answers. Response bodies pass untouched.
/// Works the same around an ``InMemoryTransport`` (which keeps its own ``InMemoryTransport/requests`` too).
public final class RequestRecorder: ShutdownTransport {
    private struct Entry: Sendable {
        let id: Int
        var request: RecordedRequest
        let tap: BodyTap?
    }

    /// The transport the requests go on to.
    public let wrapped: any ClientTransport
    /// The most bytes kept of a request body.
    public let maxBodySize: Int
    private let state = LockedState<(nextID: Int, entries: [Entry])>((0, []))

    /// A recorder in front of `transport`.
    public init(wrapping transport: any ClientTransport, maxBodySize: Int = RecordingTransport.defaultMaxBodySize) {
        self.wrapped = transport
        self.maxBodySize = maxBodySize
    }

    /// Every request received so far, in the order the transport received them, with its body as sent and its
    /// response head once answered.
    public var requests: [RecordedRequest] {
        state.withLock { $0.entries }.map { entry in
            var request = entry.request
            if let tap = entry.tap { request = request.with(body: tap.snapshot.bytes) }
            return request
        }
    }

    /// The requests that `expectation` matches, in order.
    public func requests(matching expectation: RequestExpectation) -> [RecordedRequest] {
        requests.filter(expectation.matches)
    }

    /// Forgets the requests recorded so far.
    public func clear() {
        state.withLock { $0.entries.removeAll() }
    }

    /// Shuts the wrapped transport down when it owns resources.
    public func shutdown() async throws {
        if let transport = wrapped as? any ShutdownTransport { try await transport.shutdown() }
    }

    /// Records the request and sends it on.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (sent, tap) = BodyTap.tapping(body, limit: maxBodySize)
        let recorded = RecordedRequest(head: request, body: Data(), operationID: operationID)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.entries.append(Entry(id: state.nextID, request: recorded, tap: tap))
            return state.nextID
        }
        let (response, responseBody) = try await wrapped.send(request, body: sent, baseURL: baseURL, operationID: operationID)
        state.withLock { state in
            if let index = state.entries.firstIndex(where: { $0.id == id }) { state.entries[index].request.response = response }
        }
        let subject = "\(request.method.rawValue) \(request.path ?? "/")"
        try tap?.checkLimit(subject: subject, recorder: "RequestRecorder", lost: "")
        return (response, responseBody)
    }
}
