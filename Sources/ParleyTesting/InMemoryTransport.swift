public import HTTPTypes
public import OpenAPIRuntime
import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A transport that answers from routes in memory and records every request: for your tests and previews.
///
/// <doc:TestingWithParleyTesting#Answer-from-memory> shows routes answering a client's calls, and the requests checked.
///
/// A request that matches no route fails with ``/Parley/ParleyError/Kind/transport`` naming the request and the
/// routes, so a missing stub is loud.
public final class InMemoryTransport: ClientTransport {
    /// A route: a method (or any), a path pattern, and a handler.
    public struct Route: Sendable {
        /// The method to match; `nil` matches any.
        public let method: HTTPRequest.Method?
        /// The path pattern: literal segments, `:name` for one segment, `*` at the end for the rest.
        public let pattern: String
        /// Produces the response.
        public let handler: @Sendable (RecordedRequest) async throws -> StubResponse
    }

    private let state: LockedState<(routes: [Route], requests: [RecordedRequest])>

    /// A transport with no routes yet.
    public init(routes: [Route] = []) {
        state = LockedState((routes, []))
    }

    /// Adds a route; later routes are tried first, so a test can override a general one.
    public func route(
        _ method: HTTPRequest.Method?,
        _ pattern: String,
        handler: @escaping @Sendable (RecordedRequest) async throws -> StubResponse
    ) {
        state.withLock { $0.routes.append(Route(method: method, pattern: pattern, handler: handler)) }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// Forgets the recorded requests.
    public func clearRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Records the request and answers it from the first matching route (newest first).
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var data = Data()
        if let body { data = try await Data(collecting: body, upTo: .max) }
        var recorded = RecordedRequest(head: request, body: data, operationID: operationID)
        let (routes, index) = state.withLock { state in
            state.requests.append(recorded)
            return (state.routes, state.requests.count - 1)
        }
        for route in routes.reversed() where route.method == nil || route.method == request.method {
            guard let parameters = Self.match(route.pattern, path: recorded.path) else { continue }
            recorded.parameters = parameters
            try Task.checkCancellation()
            let stub = try await route.handler(recorded)
            state.withLock { state in
                // The request's place, unless clearRequests() ran meanwhile.
                guard state.requests.indices.contains(index), state.requests[index].head == request else { return }
                state.requests[index].response = stub.head
            }
            return (stub.head, request.method == .head ? nil : HTTPBody(stub.body))
        }
        let known = routes.map { "\($0.method?.rawValue ?? "*") \($0.pattern)" }.joined(separator: ", ")
        throw ParleyError(
            .transport,
            "InMemoryTransport has no route for \(request.method.rawValue) \(recorded.path). "
                + "Known routes: \(known.isEmpty ? "none" : known). Add one with route(_:_:handler:)."
        )
    }

    static func match(_ pattern: String, path: String) -> [String: String]? {
        let patternParts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        let pathParts = path.split(separator: "/", omittingEmptySubsequences: true)
        var parameters: [String: String] = [:]
        for (index, part) in patternParts.enumerated() {
            if part == "*" { return parameters }
            guard index < pathParts.count else { return nil }
            if part.hasPrefix(":") {
                let raw = pathParts[index]
                parameters[String(part.dropFirst())] = Path.decode(segment: raw) ?? String(raw)
            } else if part != pathParts[index] {
                return nil
            }
        }
        return patternParts.count == pathParts.count ? parameters : nil
    }
}
