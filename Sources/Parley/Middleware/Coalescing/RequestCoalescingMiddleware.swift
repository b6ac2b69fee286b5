public import HTTPTypes
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Shares one upstream request among concurrent identical `GET` and `HEAD` requests: the first is sent, the others
/// wait for its response and each gets it whole (status, header fields and body).
///
/// ```swift
/// let client = Client(baseURL: api, middlewares: [.coalescing()])
/// async let a = client.send(GetUser(id: 1))
/// async let b = client.send(GetUser(id: 1))   // no second request: the first one's answer
/// ```
///
/// Identical means the same method, URL and header fields (credentials and cookies included, so that no caller gets
/// an answer meant for another), but for the fields in ``ignoredFields`` (trace context and request ids, different
/// for every call). Requests with a body are never shared. The shared request runs in the task of the first caller;
/// a caller that stops waiting (cancelled, or its deadline passed) leaves at once, and the request goes on for the
/// others. When the first caller is the one cancelled, or its own deadline passes, the request ends with it and the
/// next waiting caller sends it again, so the last one waiting decides. Each caller waits within its own response head
/// limit (``Client/Configuration/responseHeadTimeout``, or its endpoint's timeout), never the first one's. A response body larger than ``maxSharedBodySize`` is not shared:
/// the first caller streams it, and the others send their own requests (so does an event stream). Errors are shared
/// like responses.
///
/// Place it after the middlewares that add credentials (`.bearerAuth`, `.apiKey`): their fields are then part of the
/// comparison. The cookies of a ``CookieJar`` are added below the middlewares, where it cannot see them: a client shared
/// by several users should not coalesce with a jar.
public final class RequestCoalescingMiddleware: ClientMiddleware, Sendable {
    /// Header fields left out of the comparison by default: trace context and request ids.
    public static let defaultIgnoredFields: Set<HTTPField.Name> = Set(
        ["traceparent", "tracestate", "baggage", "x-request-id", "x-correlation-id"].compactMap { HTTPField.Name($0) }
    )

    /// Header fields that do not make two requests different.
    public let ignoredFields: Set<HTTPField.Name>
    /// The largest response body shared; a larger one is streamed to the first caller only.
    public let maxSharedBodySize: Int

    private let flights = LockedState<[Key: Flight]>([:])
    private let joined: (@Sendable () -> Void)?

    /// A middleware sharing identical requests in flight.
    public convenience init(
        ignoredFields: Set<HTTPField.Name> = RequestCoalescingMiddleware.defaultIgnoredFields,
        maxSharedBodySize: Int = 8 * 1024 * 1024
    ) {
        self.init(ignoredFields: ignoredFields, maxSharedBodySize: maxSharedBodySize, joined: nil)
    }

    /// With `joined` told each time a caller starts waiting for another's request (for tests).
    package init(ignoredFields: Set<HTTPField.Name>, maxSharedBodySize: Int, joined: (@Sendable () -> Void)?) {
        self.ignoredFields = ignoredFields
        self.maxSharedBodySize = max(0, maxSharedBodySize)
        self.joined = joined
    }

    /// Sends the request, or waits for an identical one in flight.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard body == nil, request.method == .get || request.method == .head else {
            return try await next(request, body, baseURL)
        }
        let key = Key(request, baseURL: baseURL, ignoring: ignoredFields)
        while true {
            let (flight, isFirst) = flights.withLock { flights -> (Flight, Bool) in
                if let flight = flights[key] { return (flight, false) }
                let flight = Flight()
                flights[key] = flight
                return (flight, true)
            }
            if isFirst { return try await lead(flight, key: key, request, baseURL: baseURL, next: next) }
            joined?()
            switch try await Self.wait(for: flight) {
            case .response(let response, let bytes):
                return (response, HTTPBody(bytes))
            case .failure(let error):
                throw error
            case .notShared:
                return try await next(request, body, baseURL)
            case .abandoned:
                continue  // the first caller was cancelled: send it again, or join whoever does
            }
        }
    }

    /// Sends the request for everyone waiting on `flight`, and tells them how it went.
    private func lead(
        _ flight: Flight,
        key: Key,
        _ request: HTTPRequest,
        baseURL: URL,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // Out of the table before the outcome is known: a caller arriving now sends a new request.
        let finish = { @Sendable [flights] (outcome: Flight.Outcome) in
            flights.withLock { if $0[key] === flight { $0[key] = nil } }
            flight.finish(outcome)
        }
        do {
            let (response, responseBody) = try await next(request, nil, baseURL)
            guard let responseBody else {
                finish(.response(response, []))
                return (response, nil)
            }
            if case .known(let length) = responseBody.length, length > maxSharedBodySize {
                finish(.notShared)
                return (response, responseBody)
            }
            // An event stream never ends: streamed to the first caller, never read whole to be shared.
            if MediaType(of: response) == .eventStream {
                finish(.notShared)
                return (response, responseBody)
            }
            var bytes: [UInt8] = []
            var iterator = responseBody.makeAsyncIterator()
            while let chunk = try await iterator.next() {
                bytes += chunk
                if bytes.count > maxSharedBodySize {
                    finish(.notShared)
                    // The caller gets what was read, then the rest as it comes.
                    return (response, PrefixedBody.body(prefix: bytes, rest: iterator, length: responseBody.length))
                }
            }
            finish(.response(response, bytes))
            return (response, HTTPBody(bytes))
        } catch {
            // A deadline is the first caller's own (its head or idle timeout, its call's timeout): the others do not
            // inherit it, they send the request again under theirs, as when it was cancelled.
            let ownDeadline = Task.isCancelled || (error as? ParleyError)?.kind == .timeout
            finish(ownDeadline ? .abandoned : .failure(error))
            throw error
        }
    }

    /// Waits for `flight`'s outcome within the caller's own response head limit (``CallScope/headTimeout``): a caller
    /// with a shorter limit than the first one's does not wait for the first one's. Its call's own timeout cancels it.
    private static func wait(for flight: Flight) async throws -> Flight.Outcome {
        guard let limit = CallScope.current?.headTimeout else { return try await flight.outcome() }
        return try await Deadline.run(within: limit, expired: { HeadDeadline.expired(limit) }) {
            try await flight.outcome()
        }
    }

    /// What makes two requests the same one.
    private struct Key: Hashable, Sendable {
        let method: String
        let url: String
        let fields: [String]

        init(_ request: HTTPRequest, baseURL: URL, ignoring ignored: Set<HTTPField.Name>) {
            method = request.method.rawValue
            url = RequestTarget.text(of: request, baseURL: baseURL)
            fields = request.headerFields.filter { !ignored.contains($0.name) }
                .map { $0.name.canonicalName + ":" + $0.value }.sorted()
        }
    }

    /// One shared request: its waiting callers and, once known, its outcome.
    private final class Flight: Sendable {
        enum Outcome: Sendable {
            case response(HTTPResponse, [UInt8])
            case failure(any Error)
            /// The body was too large to share: send your own.
            case notShared
            /// The first caller was cancelled with its request.
            case abandoned
        }

        private struct State {
            var outcome: Outcome?
            var waiters: [Int: CheckedContinuation<Outcome, any Error>] = [:]
            var next = 0
        }

        private let state = LockedState(State())

        func finish(_ outcome: Outcome) {
            let waiters = state.withLock { state -> [CheckedContinuation<Outcome, any Error>] in
                state.outcome = outcome
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: outcome) }
        }

        /// Waits for the outcome; a cancelled caller stops waiting at once.
        func outcome() async throws -> Outcome {
            let id = state.withLock { state in
                state.next += 1
                return state.next
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Outcome, any Error>) in
                    let now = state.withLock { state -> Result<Outcome, any Error>? in
                        if let outcome = state.outcome { return .success(outcome) }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiters[id] = continuation
                        return nil
                    }
                    if let now { continuation.resume(with: now) }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
            }
        }
    }
}

extension ClientMiddleware where Self == RequestCoalescingMiddleware {
    /// A ``RequestCoalescingMiddleware``: `.coalescing()`.
    public static func coalescing(
        ignoredFields: Set<HTTPField.Name> = RequestCoalescingMiddleware.defaultIgnoredFields,
        maxSharedBodySize: Int = 8 * 1024 * 1024
    ) -> RequestCoalescingMiddleware {
        RequestCoalescingMiddleware(ignoredFields: ignoredFields, maxSharedBodySize: maxSharedBodySize)
    }
}

extension HTTPField.Name {
    /// The name in lower case, for comparisons.
    fileprivate var canonicalName: String { rawName.lowercased() }
}
