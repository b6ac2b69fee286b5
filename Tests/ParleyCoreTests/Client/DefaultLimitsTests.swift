import Foundation
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// No default call may hang forever: the response head has a deadline and a streamed body a limit on the wait for
/// each chunk, both on by default, both configurable, and both immune to a server that keeps the connection busy one
/// byte at a time (which restarts the transports' idle timeouts forever).
@Suite("Default limits: response head and stream idle", .timeLimit(.minutes(2)))
struct DefaultLimitsTests {
    @Test("the defaults bound the head, the gaps in a stream and a download's size")
    func defaults() {
        let configuration = Client.Configuration()
        #expect(configuration.responseHeadTimeout == .seconds(60))
        #expect(configuration.streamIdleTimeout == .seconds(60))
        #expect(configuration.maxDownloadSize == 4 << 30)
        #expect(configuration.responseBodyTimeout == .seconds(300))
    }

    /// The head comes at once, then the body a byte every 20 ms (a million bytes: 5 1/2 hours), so no idle timeout
    /// ever fires. A buffered call fails once responseBodyTimeout (500 ms here) has passed since the head; the
    /// transports' idle timeouts (30 s) and the 25 s bound are only guards.
    @Test(
        "a buffered body dribbled one byte at a time fails with .timeout at responseBodyTimeout",
        arguments: TransportKind.allCases
    )
    func dribbledBufferedBody(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(responseBodyTimeout: .milliseconds(500))
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let started = ContinuousClock.now
            for call in [FaultCall<Data>(path: "/dribble-body", query: ["interval": "20"])] {
                let error = await expectParleyError(.timeout) { try await client.send(call) }
                #expect(error?.message.contains("responseBodyTimeout") == true, "\(String(describing: error))")
            }
            let discarded = await expectParleyError(.timeout) {
                try await client.send(FaultCallDroppingBody(path: "/dribble-body", query: ["interval": "20"]))
            }
            #expect(discarded?.message.contains("responseBodyTimeout") == true, "\(String(describing: discarded))")
            #expect(ContinuousClock.now - started < .seconds(25))
        }
    }

    /// The server sends the status line, then a header byte every 50 ms, forever. The transports' idle timeouts
    /// (30 s here) never fire; the 30 s overall timeout is only a guard against hanging (its message differs).
    @Test("a head dribbled one byte at a time fails with .timeout at responseHeadTimeout", arguments: TransportKind.allCases)
    func dribbledHead(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(timeout: .seconds(30), responseHeadTimeout: .milliseconds(500))
        try await withFaultClient(kind, configuration: configuration) { client, server in
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) {
                try await client.send(FaultCall<Data>(path: "/dribble-head", query: ["interval": "50"]))
            }
            #expect(error?.message.contains("responseHeadTimeout") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(25))
            // One connection at most, never a second attempt (URLSession's may not have connected yet: its transfers
            // share one FoundationNetworking work queue with every other URLSession test of the process).
            #expect(server.acceptedConnections <= 1)
        }
    }

    @Test(
        "stream(): a head dribbled one byte at a time fails with .timeout at responseHeadTimeout",
        arguments: TransportKind.allCases
    )
    func dribbledHeadStream(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(timeout: .seconds(30), responseHeadTimeout: .milliseconds(500))
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let error = await expectParleyError(.timeout) {
                try await client.stream(FaultCall<Data>(path: "/dribble-head", query: ["interval": "50"]))
            }
            #expect(error?.message.contains("responseHeadTimeout") == true, "\(String(describing: error))")
        }
    }

    /// A control: the deadline bounds the head only; a head that comes in time is answered.
    @Test("a head that comes within responseHeadTimeout is answered", arguments: TransportKind.allCases)
    func headInTime(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(timeout: .seconds(30), responseHeadTimeout: .seconds(20))
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let body = try await client.send(FaultCall<Data>(path: "/slow-headers", query: ["delay": "200"]))
            #expect(String(decoding: body, as: UTF8.self) == "late")
        }
    }

    /// The head arrives, then the body's next byte only after 60 s: the stream's 300 ms idle limit fires, before the
    /// transports' idle timeouts (30 s here) would (the bound is loose: a busy machine may stall the process for
    /// seconds).
    @Test("a streamed body that pauses fails with .timeout at streamIdleTimeout", arguments: TransportKind.allCases)
    func streamIdle(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(streamIdleTimeout: .milliseconds(300))
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let streamed = try await client.stream(FaultCall<Data>(path: "/dribble-body", query: ["interval": "60000"]))
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) {
                for try await _ in streamed.body {}
            }
            #expect(error?.message.contains("streamIdleTimeout") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(25))
        }
    }

    /// A control: bytes that come more often than the idle limit keep the stream going.
    @Test("a streamed body that keeps coming is read past the idle limit", arguments: TransportKind.allCases)
    func streamKeepsComing(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(streamIdleTimeout: .seconds(10))
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let streamed = try await client.stream(FaultCall<Data>(path: "/dribble-body", query: ["interval": "20"]))
            var received = 0
            for try await chunk in streamed.body {
                received += chunk.count
                if received >= 5 { break }
            }
            #expect(received >= 5)
        }
    }

    /// `/sse/forever` sends one event, then a keep-alive comment only every 20 s: the 300 ms idle limit fires first.
    @Test(
        "an event stream that goes quiet fails with .timeout at streamIdleTimeout when it may not reconnect",
        arguments: TransportKind.allCases
    )
    func eventsIdle(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(streamIdleTimeout: .milliseconds(300))
        try await withDemoClient(kind, configuration: configuration) { client, _ in
            let events = client.events(GetData(path: "/sse/forever", query: ["every": "20000"]), reconnect: .never)
            var received: [String] = []
            let error = await expectParleyError(.timeout) {
                for try await event in events { received.append(event.data) }
            }
            #expect(received == ["hello"])
            #expect(error?.message.contains("streamIdleTimeout") == true, "\(String(describing: error))")
        }
    }
}

extension DefaultLimitsTests {
    /// A long poll: the endpoint's own timeout (20 s) replaces the client's 300 ms head deadline for its calls.
    @Test("an endpoint's own timeout replaces responseHeadTimeout for its calls", arguments: TransportKind.allCases)
    func endpointTimeoutGovernsHead(_ kind: TransportKind) async throws {
        let configuration = Client.Configuration(responseHeadTimeout: .milliseconds(300))
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let late = FaultCall<Data>(path: "/slow-headers", query: ["delay": "1000"], timeout: .seconds(20))
            let body = try await client.send(late)
            #expect(String(decoding: body, as: UTF8.self) == "late")
            let error = await expectParleyError(.timeout) {
                try await client.send(FaultCall<Data>(path: "/slow-headers", query: ["delay": "5000"]))
            }
            #expect(error?.message.contains("responseHeadTimeout") == true, "\(String(describing: error))")
        }
    }
}

extension DefaultLimitsTests {
    /// The head's clock starts once the whole request body has been taken: an upload whose source takes ~4 s (10
    /// chunks of 64 KiB, 400 ms apart: a slow disk or network source) is not cut off by a 2 s head deadline.
    /// On AsyncHTTPClient only: the deadline is the client's, the same on every transport, and over URLSession a
    /// body this slow holds FoundationNetworking's one work queue (libcurl reads it there) for its 4 s, stalling every
    /// other URLSession call of the test process (a documented limitation of that transport on Linux).
    @Test("the head deadline starts after the request body has been sent", arguments: [TransportKind.asyncHTTPClient])
    func headDeadlineAfterUpload(_ kind: TransportKind) async throws {
        let chunk = [UInt8](repeating: UInt8(ascii: "u"), count: 64 << 10)
        let count = 10
        let slow = AsyncStream<ArraySlice<UInt8>> { continuation in
            let producer = Task {
                for _ in 0..<count {
                    // Simulates a slow source; nothing in the test waits on this timing.
                    try? await Task.sleep(for: .milliseconds(400))
                    continuation.yield(chunk[...])
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
        let body = HTTPBody(slow, length: .known(Int64(chunk.count * count)), iterationBehavior: .single)
        let configuration = Client.Configuration(timeout: .seconds(60), responseHeadTimeout: .seconds(2))
        try await withDemoClient(kind, configuration: configuration) { client, _ in
            let echo = try await client.send(EchoEndpoint(method: .post, path: "/echo", body: .stream(body)))
            #expect(echo.bodyLength == chunk.count * count)
        }
    }
}
