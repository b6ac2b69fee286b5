import Foundation
import Parley
import ParleyDemoServer
import Testing

/// What `/auth/me` answers: the number of the token it accepted.
struct AuthMe: Decodable, Sendable {
    let subject: String
    let token: String
}

/// What `/auth/stats` counts.
struct AuthStats: Decodable, Sendable, Equatable {
    var issued: Int
    var rotations: Int
    var accepted: Int
    var rejected: Int
}

/// `GET|POST /auth/me`, accepted only with the server's current bearer token.
struct WhoAmI: Endpoint {
    typealias Response = AuthMe
    var method: HTTPRequest.Method = .get
    var path: Path { "/auth/me" }
    var body: RequestBody = .none
}

struct IssuedToken: Decodable, Sendable {
    let access_token: String
    let expires_in: Int?
}

/// `POST /auth/token`: the demo server's token endpoint.
struct IssueToken: Endpoint {
    typealias Response = IssuedToken
    var expiresIn: Int?
    var method: HTTPRequest.Method { .post }
    var path: Path { "/auth/token" }
    var query: Query { ["expiresIn": expiresIn.map(String.init)] }
}

/// `POST /auth/rotate`: the server revokes its current token.
struct RotateToken: Endpoint {
    typealias Response = Void
    var method: HTTPRequest.Method { .post }
    var path: Path { "/auth/rotate" }
}

struct GetAuthStats: Endpoint {
    typealias Response = AuthStats
    var path: Path { "/auth/stats" }
}

/// A token provider backed by the demo server's token endpoint, through its own client (without auth).
final class DemoTokens: AccessTokenProvider {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private struct State {
        var calls = 0
        var stale: [AccessToken?] = []
        var failing = false
        var expiresIn: [Int?] = []
        var gate: Gate?
    }

    private let admin: Client
    private let state = LockedState(State())
    /// Yields the call number each time the provider is entered.
    let entered: AsyncStream<Int>
    private let enteredContinuation: AsyncStream<Int>.Continuation

    init(admin: Client) {
        self.admin = admin
        (entered, enteredContinuation) = AsyncStream<Int>.makeStream()
    }

    /// Calls so far.
    var calls: Int { state.withLock { $0.calls } }
    /// The `stale` argument of each call.
    var staleTokens: [AccessToken?] { state.withLock { $0.stale } }

    /// Makes the provider fail (with an error whose description shows the stale token) or succeed again.
    func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }
    /// The `expires_in` of the next tokens, in order (then none).
    func setExpiries(_ expiries: [Int?]) { state.withLock { $0.expiresIn = expiries } }
    /// Holds calls until `gate` opens.
    func setGate(_ gate: Gate?) { state.withLock { $0.gate = gate } }

    func token(replacing stale: AccessToken?) async throws -> AccessToken {
        let (call, failing, expiresIn, gate) = state.withLock { state in
            state.calls += 1
            state.stale.append(stale)
            let expiresIn = state.expiresIn.isEmpty ? nil : state.expiresIn.removeFirst()
            return (state.calls, state.failing, expiresIn, state.gate)
        }
        enteredContinuation.yield(call)
        try await gate?.wait()
        if failing {
            throw Failure(description: "the token endpoint refused to refresh \(stale?.value ?? "nothing")")
        }
        let issued = try await admin.send(IssueToken(expiresIn: expiresIn))
        return AccessToken(issued.access_token, expiresIn: issued.expires_in.map { .seconds($0) })
    }
}

/// Runs `body` with a demo server, an admin client without auth, a ``DemoTokens`` provider on it and a client with
/// `.bearerAuth(tokens, leeway:)` followed by `inner` middlewares.
func withBearerClient<T>(
    _ transport: TransportKind,
    leeway: Duration = BearerAuthMiddleware.defaultLeeway,
    inner: [any ClientMiddleware] = [],
    _ body: (_ client: Client, _ admin: Client, _ tokens: DemoTokens) async throws -> T
) async throws -> T {
    try await withDemoClient(transport) { admin, server in
        let tokens = DemoTokens(admin: admin)
        let client = Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: transport.makeTransport(),
            middlewares: [.bearerAuth(tokens, leeway: leeway)] + inner,
            configuration: Client.Configuration(timeout: .seconds(30))
        )
        do {
            let result = try await body(client, admin, tokens)
            try await client.shutdown()
            return result
        } catch {
            try await client.shutdown()
            throw error
        }
    }
}

/// A one-shot signal that tasks can wait for (cancellably) until someone opens it.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextID = 0
    }

    private let state = LockedState(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { Task.isCancelled ? continuation.resume(throwing: CancellationError()) : continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}

/// Once armed with a count, holds the next `count` requests until all of them have arrived, then lets everything
/// through: each of them carries what the outer middlewares chose before any of them got an answer.
final class ArrivalBarrier: ClientMiddleware {
    private struct State {
        var remaining = 0
        var gate: Gate?
    }

    private let state = LockedState(State())

    /// Holds the next `count` requests until the last of them arrives.
    func arm(_ count: Int) {
        state.withLock { $0 = State(remaining: count, gate: Gate()) }
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (gate, isLast) = state.withLock { state -> (Gate?, Bool) in
            guard let gate = state.gate, state.remaining > 0 else { return (nil, false) }
            state.remaining -= 1
            return (gate, state.remaining == 0)
        }
        if isLast { gate?.open() } else { try await gate?.wait() }
        return try await next(request, body, baseURL)
    }
}
