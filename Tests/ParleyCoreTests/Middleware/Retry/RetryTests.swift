import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Records `CallContext.current?.attempt` for every request that reaches it.
struct AttemptRecorder: ClientMiddleware {
    let attempts = LockedBox<[Int]>([])
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        attempts.mutate { $0.append(CallContext.current?.attempt ?? 0) }
        return try await next(request, body, baseURL)
    }
}

private let fast = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(2), maxBackoff: .milliseconds(10))

@Suite("Retry middleware", .timeLimit(.minutes(1)))
struct RetryTests {
    @Test("A flaky GET succeeds on the third attempt; every attempt is numbered downstream", arguments: TransportKind.allCases)
    func flakyGetSucceeds(transport: TransportKind) async throws {
        let log = RetryLog()
        let recorder = AttemptRecorder()
        try await withDemoClient(transport, middlewares: [.retry(fast, onRetry: log.record), recorder]) { client, _ in
            let answer = try await client.send(Flaky(failures: 2))
            #expect(answer.attempts == 3)
            #expect(log.all.map(\.failedAttempt) == [1, 2])
            #expect(log.all.map(\.status) == [503, 503])
            #expect(recorder.attempts.value == [1, 2, 3])
        }
    }

    @Test("Each default retryable status is retried", arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatuses(status: Int) async throws {
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(fast)]) { client, _ in
            let got1 = try await client.send(Flaky(failures: 1, status: status)).attempts
            #expect(got1 == 2)
        }
    }

    @Test("A 501 or 400 is not retried")
    func nonRetryableStatus() async throws {
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(fast)]) { client, _ in
            for status in [400, 501] {
                let flaky = Flaky(failures: 1, status: status)
                let error = await expectParleyError(.unacceptableStatus) { try await client.send(flaky) }
                #expect(error?.status?.code == status)
                let got2 = try await client.send(FlakyCount(key: flaky.key)).attempts
                #expect(got2 == 1)
            }
        }
    }

    @Test("A POST is not retried unless the endpoint says it is idempotent", arguments: TransportKind.allCases)
    func postNotRetried(transport: TransportKind) async throws {
        try await withDemoClient(transport, middlewares: [.retry(fast)]) { client, _ in
            let post = Flaky(method: .post, failures: 1, body: .json(["a": 1]))
            await expectParleyError(.unacceptableStatus) { try await client.send(post) }
            let got3 = try await client.send(FlakyCount(key: post.key)).attempts
            #expect(got3 == 1)
            let idempotent = Flaky(method: .post, failures: 1, idempotent: true, body: .json(["a": 1]))
            let got4 = try await client.send(idempotent).attempts
            #expect(got4 == 2)
        }
    }

    @Test("The policy can retry non-idempotent requests")
    func policyRetriesPost() async throws {
        var policy = fast
        policy.retriesNonIdempotentRequests = true
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(policy)]) { client, _ in
            let got5 = try await client.send(Flaky(method: .post, failures: 1, body: .text("x"))).attempts
            #expect(got5 == 2)
        }
    }

    @Test("A body that can be read only once is never sent twice", arguments: TransportKind.allCases)
    func streamBodyNotReplayed(transport: TransportKind) async throws {
        var policy = fast
        policy.retriesNonIdempotentRequests = true
        try await withDemoClient(transport, middlewares: [.retry(policy)]) { client, _ in
            let once = HTTPBody([UInt8]("once".utf8), length: .known(4), iterationBehavior: .single)
            let put = Flaky(method: .put, failures: 1, body: .stream(once))
            await expectParleyError(.unacceptableStatus) { try await client.send(put) }
            let got6 = try await client.send(FlakyCount(key: put.key)).attempts
            #expect(got6 == 1)
        }
    }

    @Test("Attempts run out: the last response is returned and validated", arguments: TransportKind.allCases)
    func attemptsRunOut(transport: TransportKind) async throws {
        try await withDemoClient(transport, middlewares: [.retry(fast)]) { client, _ in
            let flaky = Flaky(failures: 10)
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(flaky) }
            #expect(error?.status?.code == 503)
            let got7 = try await client.send(FlakyCount(key: flaky.key)).attempts
            #expect(got7 == 3)
        }
    }

    @Test("Connection failures are retried, and the error says how many attempts were made", arguments: TransportKind.allCases)
    func connectionRefused(transport: TransportKind) async throws {
        let url = try await DemoServer.closedPortURL()
        let log = RetryLog()
        let client = Client(baseURL: url, transport: transport.makeTransport(), middlewares: [.retry(fast, onRetry: log.record)])
        defer { Task { try? await client.shutdown() } }
        let error = await expectParleyError(.transport) { try await client.send(GetText(path: "/text")) }
        #expect(error?.attempts == 3, "\(String(describing: error))")
        #expect(error?.description.contains("gave up after 3 attempts") == true, "\(String(describing: error))")
        #expect(log.all.count == 2)
        #expect(log.all.allSatisfy { $0.error?.kind == .transport })
    }

    @Test("Retry-After in seconds is honoured and reported as the server's")
    func retryAfterSeconds() async throws {
        let log = RetryLog()
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(fast, onRetry: log.record)]) { client, _ in
            let got8 = try await client.send(Flaky(failures: 1, retryAfter: "1")).attempts
            #expect(got8 == 2)
            #expect(log.all.map(\.delay) == [.seconds(1)])
            #expect(log.all.map(\.delayFromRetryAfter) == [true])
        }
    }

    @Test("Retry-After as an HTTP-date in the past means retry now")
    func retryAfterDate() async throws {
        let log = RetryLog()
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(fast, onRetry: log.record)]) { client, _ in
            let flaky = Flaky(failures: 1, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT")
            let got9 = try await client.send(flaky).attempts
            #expect(got9 == 2)
            #expect(log.all.map(\.delay) == [.zero])
        }
    }

    @Test("A Retry-After beyond the cap is not waited for")
    func retryAfterBeyondCap() async throws {
        var policy = fast
        policy.maxRetryAfter = .seconds(5)
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(policy)]) { client, _ in
            let flaky = Flaky(failures: 1, retryAfter: "3600")
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(flaky) }
            #expect(error?.response?.headerFields[.retryAfter] == "3600")
            let got10 = try await client.send(FlakyCount(key: flaky.key)).attempts
            #expect(got10 == 1)
        }
    }

    @Test("No wait runs past the policy's deadline")
    func deadline() async throws {
        var policy = fast
        policy.deadline = .milliseconds(500)
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(policy)]) { client, _ in
            let flaky = Flaky(failures: 1, retryAfter: "2")
            await expectParleyError(.unacceptableStatus) { try await client.send(flaky) }
            let got11 = try await client.send(FlakyCount(key: flaky.key)).attempts
            #expect(got11 == 1)
        }
    }

    @Test("An attempt that exceeds the attempt timeout fails with .timeout and is retried", arguments: TransportKind.allCases)
    func attemptTimeout(transport: TransportKind) async throws {
        var policy = fast
        policy.maxAttempts = 2
        policy.attemptTimeout = .milliseconds(200)
        let log = RetryLog()
        try await withDemoClient(transport, middlewares: [.retry(policy, onRetry: log.record)]) { client, _ in
            let error = await expectParleyError(.timeout) {
                try await client.send(Get<[String: Int]>(path: "/slow", query: ["ms": "5000"]))
            }
            #expect(error?.message.contains("attemptTimeout") == true)
            #expect(error?.attempts == 2)
            #expect(error?.description.contains("gave up after 2 attempts") == true)
            #expect(log.all.map { $0.error?.kind } == [.timeout])
        }
    }

    @Test("The budget stops retries once spent")
    func budget() async throws {
        let budget = RetryBudget(ratio: 0, reserve: 1)
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(fast, budget: budget)]) { client, _ in
            let first = Flaky(failures: 100)
            await expectParleyError(.unacceptableStatus) { try await client.send(first) }
            let got12 = try await client.send(FlakyCount(key: first.key)).attempts
            #expect(got12 == 2)
            let second = Flaky(failures: 100)
            await expectParleyError(.unacceptableStatus) { try await client.send(second) }
            let got13 = try await client.send(FlakyCount(key: second.key)).attempts
            #expect(got13 == 1)
            #expect(budget.available < 1)
        }
    }

    @Test("A budget deposits its ratio per request, up to its capacity")
    func budgetArithmetic() {
        let budget = RetryBudget(ratio: 0.5, reserve: 0)
        #expect(!budget.withdraw())
        budget.deposit()
        budget.deposit()
        #expect(budget.withdraw())
        #expect(!budget.withdraw())
        #expect(RetryBudget.unlimited.withdraw())
    }

    @Test("Cancelling during the wait ends the call at once, with no further attempt", arguments: TransportKind.allCases)
    func cancelDuringBackoff(transport: TransportKind) async throws {
        let (retries, continuation) = AsyncStream<RetryEvent>.makeStream()
        let retry = RetryMiddleware(fast, onRetry: { continuation.yield($0) })
        try await withDemoClient(transport, middlewares: [retry]) { client, _ in
            let flaky = Flaky(failures: 1, retryAfter: "30")
            let call = Task { try await client.send(flaky) }
            for await _ in retries { break }
            call.cancel()
            let result = await call.result
            #expect(throws: ParleyError.self) { try result.get() }
            if case .failure(let error as ParleyError) = result { #expect(error.kind == .cancelled) }
            let got14 = try await client.send(FlakyCount(key: flaky.key)).attempts
            #expect(got14 == 1)
        }
    }

    @Test("Full jitter stays within the doubling cap")
    func jitterBounds() {
        let policy = RetryPolicy(initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(1000))
        for _ in 0..<200 {
            #expect(policy.backoff(beforeRetry: 1) <= .milliseconds(100))
            #expect(policy.backoff(beforeRetry: 3) <= .milliseconds(400))
            #expect(policy.backoff(beforeRetry: 30) <= .milliseconds(1000))
        }
        let samples = (0..<200).map { _ in policy.backoff(beforeRetry: 4) }
        #expect(Set(samples).count > 100, "waits are spread, not fixed")
    }

    @Test("Retry-After: the three HTTP-date forms and delay-seconds")
    func retryAfterForms() throws {
        let now = Date(timeIntervalSince1970: 784_111_777 - 10)  // ten seconds before Sun, 06 Nov 1994 08:49:37 GMT
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(RetryPolicy.retryAfterDelay(form, now: now) == .seconds(10), "\(form)")
        }
        #expect(RetryPolicy.retryAfterDelay("120", now: now) == .seconds(120))
        #expect(RetryPolicy.retryAfterDelay(" 7 ", now: now) == .seconds(7))
        #expect(RetryPolicy.retryAfterDelay("Sun, 06 Nov 1994 08:49:27 GMT", now: now) == .zero)
        for bad in ["", "-5", "+5", "1.5", "soon", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            #expect(RetryPolicy.retryAfterDelay(bad, now: now) == nil, "\(bad)")
        }
    }

    @Test("The client's timeout bounds the whole call, retries and waits included", arguments: TransportKind.allCases)
    func overallTimeout(transport: TransportKind) async throws {
        // The first attempt is answered 503 with Retry-After: 30; the 2 s timeout must end the call during that
        // wait, and no second attempt may follow. (Whether the first attempt reached the server within 2 s is not
        // the point: URLSession's may still wait for FoundationNetworking's one work queue, shared with the other
        // suites' transfers, so the count is 0 or 1, never 2.)
        let configuration = Client.Configuration(timeout: .seconds(2))
        try await withDemoClient(transport, middlewares: [.retry(fast)], configuration: configuration) { client, _ in
            let flaky = Flaky(failures: 1, retryAfter: "30")
            let error = await expectParleyError(.timeout) { try await client.send(flaky) }
            #expect(
                error?.message.contains("2.0 seconds") == true || error?.message.contains("2 s") == true,
                "\(String(describing: error))"
            )
            let untimed = Client(baseURL: client.baseURL, transport: client.transport)
            let count = try await untimed.send(FlakyCount(key: flaky.key))
            #expect(count.attempts <= 1)
        }
    }
}
