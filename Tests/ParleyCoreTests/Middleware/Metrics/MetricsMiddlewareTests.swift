import Foundation
import HTTPTypes
import Metrics
import MetricsTestKit
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// `(name, value)` dimensions as a dictionary, for comparing.
private func dimensions(_ pairs: [(String, String)]) -> [String: String] {
    Dictionary(pairs, uniquingKeysWith: { _, last in last })
}

extension TestMetrics {
    /// The counters named `label` whose dimensions include `subset`.
    func counters(_ label: String, matching subset: [String: String]) -> [TestCounter] {
        counters(label: label).filter { counter in
            let all = dimensions(counter.dimensions)
            return subset.allSatisfy { all[$0.key] == $0.value }
        }
    }

    /// The sum of the counters named `label` whose dimensions include `subset`.
    func total(_ label: String, _ subset: [String: String] = [:]) -> Int64 {
        counters(label, matching: subset).map(\.totalValue).reduce(0, +)
    }

    /// The in-flight meters' last values, by endpoint.
    var inFlight: [String: Double] {
        Dictionary(
            meters(label: "http.client.active_requests").map {
                (dimensions($0.dimensions)["endpoint"] ?? "", $0.lastValue ?? -1)
            },
            uniquingKeysWith: { _, last in last }
        )
    }
}

@Suite("Metrics middleware", .timeLimit(.minutes(1)))
struct MetricsMiddlewareTests {
    @Test("Requests, latency, in flight and bytes, by method, endpoint name and status class", arguments: TransportKind.allCases)
    func counted(transport: TransportKind) async throws {
        let metrics = TestMetrics()
        try await withDemoClient(transport, middlewares: [.metrics(factory: metrics)]) { client, _ in
            _ = try await client.send(GetUser(id: 1))
            _ = try await client.send(GetUser(id: 2))
            let echo = try await client.send(EchoEndpoint(method: .post, body: .text(String(repeating: "z", count: 300))))
            #expect(echo.bodyLength == 300)

            let getUser = ["method": "GET", "endpoint": "GetUser", "status_class": "2xx"]
            #expect(metrics.total("http.client.requests", getUser) == 2)
            #expect(metrics.total("http.client.requests", ["method": "POST", "endpoint": "EchoEndpoint"]) == 1)
            #expect(metrics.total("http.client.errors") == 0)
            let timers = metrics.timers(label: "http.client.request.duration")
            #expect(timers.map { $0.values.count }.reduce(0, +) == 3)
            #expect(timers.allSatisfy { $0.values.allSatisfy { $0 > 0 } })
            #expect(metrics.total("http.client.request.body.bytes", ["endpoint": "EchoEndpoint"]) == 300)
            #expect(metrics.total("http.client.request.body.bytes", ["endpoint": "GetUser"]) == 0)
            #expect(metrics.total("http.client.response.body.bytes", ["endpoint": "GetUser"]) > 40)
            #expect(metrics.inFlight == ["GetUser": 0, "EchoEndpoint": 0])
            let inFlightValues = try metrics.expectMeter(
                "http.client.active_requests",
                [("method", "GET"), ("endpoint", "GetUser")]
            ).values
            #expect(inFlightValues == [1, 0, 1, 0])
            // The endpoint's name, never the raw path.
            let values = (metrics.counters.flatMap(\.dimensions) + metrics.timers.flatMap(\.dimensions)).map(\.1)
            #expect(!values.isEmpty && !values.contains { $0.contains("/") }, "\(values)")
        }
    }

    @Test("Decoding and validation failures, found above the chain, are counted by kind", arguments: TransportKind.allCases)
    func failuresAfterChain(transport: TransportKind) async throws {
        let metrics = TestMetrics()
        try await withDemoClient(transport, middlewares: [.metrics(factory: metrics)]) { client, _ in
            await expectParleyError(.decoding) { try await client.send(Get<[Int]>(path: "/users/1")) }
            await expectParleyError(.validation) {
                try await client.send(Get<JSONValue>(path: "/users/1", validators: [.requiredJSONKeys(["profile.bio"])]))
            }
            #expect(metrics.total("http.client.requests", ["method": "GET", "status_class": "2xx"]) == 2)
            #expect(metrics.total("http.client.errors", ["method": "GET", "kind": "decoding"]) == 1)
            #expect(metrics.total("http.client.errors", ["method": "GET", "kind": "validation"]) == 1)
            #expect(metrics.total("http.client.errors") == 2)
            // Under the endpoint's name, as its requests are.
            let requestEndpoints = Set(
                metrics.counters(label: "http.client.requests").flatMap(\.dimensions).filter { $0.0 == "endpoint" }.map(\.1)
            )
            let errorEndpoints = Set(
                metrics.counters(label: "http.client.errors").flatMap(\.dimensions).filter { $0.0 == "endpoint" }.map(\.1)
            )
            #expect(errorEndpoints == requestEndpoints && !errorEndpoints.isEmpty, "\(errorEndpoints) \(requestEndpoints)")
        }
    }

    @Test(
        "Status classes: a 3xx (not followed: no Location), 4xx or 5xx answer is a response, not an error",
        arguments: TransportKind.allCases
    )
    func statusClasses(transport: TransportKind) async throws {
        let metrics = TestMetrics()
        try await withDemoClient(transport, middlewares: [.metrics(factory: metrics, prefix: "demo.")]) { client, _ in
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/503")) }
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/404")) }
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/302")) }
            _ = try await client.send(GetText(path: "/status/201"))
            for statusClass in ["2xx", "3xx", "4xx", "5xx"] {
                #expect(metrics.total("demo.http.client.requests", ["status_class": statusClass]) == 1)
            }
            // Rejected by the endpoint above the chain: the client reports them as errors of their kind.
            #expect(metrics.total("demo.http.client.errors") == 3)
            #expect(
                metrics.total("demo.http.client.errors", ["kind": "unacceptableStatus", "endpoint": "GetText", "method": "GET"])
                    == 3
            )
            #expect(metrics.counters(label: "http.client.requests").isEmpty, "every name carries the prefix")
        }
    }

    @Test(
        "Connection refused: an error of kind transport, status class error, in flight back to 0",
        arguments: TransportKind.allCases
    )
    func refused(transport: TransportKind) async throws {
        let metrics = TestMetrics()
        try await withRefusingClient(transport, middlewares: [.metrics(factory: metrics)]) { client in
            await expectParleyError(.transport) { try await client.send(GetUser(id: 1)) }
            #expect(metrics.total("http.client.errors", ["kind": "transport", "endpoint": "GetUser", "method": "GET"]) == 1)
            #expect(metrics.total("http.client.requests", ["status_class": "error"]) == 1)
            #expect(metrics.inFlight == ["GetUser": 0])
        }
    }

    @Test("A redirect loop refused by the policy: an error of kind redirect", arguments: TransportKind.allCases)
    func redirectLoop(transport: TransportKind) async throws {
        let metrics = TestMetrics()
        try await withDemoClient(transport, middlewares: [.metrics(factory: metrics)]) { client, _ in
            await expectParleyError(.redirect) { try await client.send(GetText(path: "/redirect/loop")) }
            #expect(metrics.total("http.client.errors", ["kind": "redirect"]) == 1)
        }
    }

    @Test(
        "A body cut off mid-way: an error of kind transport after a 2xx head, bytes received counted",
        arguments: TransportKind.allCases
    )
    func bodyCutOff(transport: TransportKind) async throws {
        let metrics = TestMetrics()
        try await withDemoClient(transport, middlewares: [.metrics(factory: metrics)]) { client, _ in
            await expectParleyError(.transport) { try await client.send(GetData(path: "/close-mid-body")) }
            #expect(metrics.total("http.client.errors", ["kind": "transport"]) == 1)
            #expect(metrics.total("http.client.requests", ["status_class": "2xx"]) == 1)
            #expect(metrics.total("http.client.response.body.bytes") <= 100)
            #expect(metrics.inFlight.values.allSatisfy { $0 == 0 })
        }
    }

    // On AsyncHTTPClient Parley inflates under the middlewares, so the body fails as it is read. (URLSession
    // inflates by itself, and the buffered-body limit that stops it there is checked above the middlewares.)
    @Test("A compression bomb: an error of kind bodyTooLarge")
    func bomb() async throws {
        let metrics = TestMetrics()
        var configuration = Client.Configuration()
        configuration.decompression = ResponseDecompression(maxSize: 1 << 20)
        try await withDemoClient(.asyncHTTPClient, middlewares: [.metrics(factory: metrics)], configuration: configuration) {
            client,
            _ in
            let bomb = GetData(path: "/gzip/bomb", query: ["inflated": "\(8 << 20)"])
            await expectParleyError(.bodyTooLarge) { try await client.send(bomb) }
            #expect(metrics.total("http.client.errors", ["kind": "bodyTooLarge"]) == 1)
        }
    }

    @Test(
        "The client's timeout cancels the call: counted as cancelled, nothing left in flight",
        arguments: TransportKind.allCases
    )
    func timeout(transport: TransportKind) async throws {
        let metrics = TestMetrics()
        var configuration = Client.Configuration()
        configuration.timeout = .milliseconds(200)
        let done = ChainDone()
        try await withDemoClient(transport, middlewares: [done, .metrics(factory: metrics)], configuration: configuration) {
            client,
            _ in
            await expectParleyError(.timeout) { try await client.send(GetData(path: "/hang-headers")) }
            await done.next()  // the timeout answers at once; the cancelled exchange winds down after
            #expect(metrics.total("http.client.errors", ["kind": "cancelled"]) == 1)
            #expect(metrics.inFlight.values.allSatisfy { $0 == 0 })
        }
    }

    @Test("Installed after .retry(), every attempt is counted with its status class")
    func attempts() async throws {
        let metrics = TestMetrics()
        let fast = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(2), maxBackoff: .milliseconds(10))
        try await withDemoClient(.asyncHTTPClient, middlewares: [.retry(fast), .metrics(factory: metrics)]) { client, _ in
            let answer = try await client.send(Flaky(failures: 2))
            #expect(answer.attempts == 3)
            #expect(metrics.total("http.client.requests", ["endpoint": "Flaky", "status_class": "5xx"]) == 2)
            #expect(metrics.total("http.client.requests", ["endpoint": "Flaky", "status_class": "2xx"]) == 1)
        }
    }
}
