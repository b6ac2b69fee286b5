import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// A download of an endless body cannot fill the disk: it honours the call's timeout and the client's
/// `maxDownloadSize`, and a download that fails on either leaves no file behind.
@Suite("Downloads: deadline and size limit", .timeLimit(.minutes(2)))
struct DownloadLimitsTests {
    /// `/never-ends?interval=5`: 64 bytes every 5 ms, forever (slow enough that a download which ignored the timeout
    /// would not fill the disk before the suite's time limit).
    @Test(
        "a download of a body that never ends fails with .timeout at the call's timeout, leaving no file",
        arguments: TransportKind.allCases
    )
    func timeout(_ kind: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let configuration = Client.Configuration(timeout: .seconds(1), maxDownloadSize: nil)
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) {
                try await client.download(
                    FaultCall<Data>(path: "/never-ends", query: ["interval": "5"]),
                    to: folder.file("endless.bin")
                ).value
            }
            #expect(error?.message.contains("timeout") == true)
            #expect(ContinuousClock.now - started < .seconds(25))
        }
        #expect(folder.names() == [])
    }

    /// `/never-ends` as fast as the client reads: the size limit ends it (the 60 s timeout is a guard only).
    ///
    /// Over URLSession the body comes in 64-byte chunks every millisecond instead, and the limit is 16 KiB: while
    /// libcurl reads an endless body at loopback speed, FoundationNetworking's one work queue stays busy, and the
    /// cancellation (which must wait for that queue on the Swift 6.3 toolchain) took 3 to 6 s to close the
    /// connection, past the suite's 5 s bound for it (a documented limitation of that transport on Linux).
    @Test(
        "a download of a body that never ends fails with .bodyTooLarge at maxDownloadSize, leaving no file",
        arguments: TransportKind.allCases
    )
    func sizeLimit(_ kind: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let limit: Int64 = kind == .urlSession ? 16 << 10 : 1 << 20
        let query: Query = kind == .urlSession ? ["interval": "1"] : []
        let configuration = Client.Configuration(timeout: .seconds(60), maxDownloadSize: limit)
        let log = ProgressLog()
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let error = await expectParleyError(.bodyTooLarge) {
                try await client.download(
                    FaultCall<Data>(path: "/never-ends", query: query),
                    to: folder.file("endless.bin"),
                    onProgress: log.record
                ).value
            }
            #expect(error?.message.contains("maxDownloadSize") == true, "\(String(describing: error))")
        }
        #expect(folder.names() == [])
        #expect(log.all.allSatisfy { $0.completedBytes <= limit })
    }

    /// The head arrives, then the body's next byte only after 60 s: the download's wait for a chunk is bounded by
    /// streamIdleTimeout (300 ms here) as a stream's is, though the download reads in a loop of its own (the
    /// transports' idle timeouts are 30 s and more; the 25 s bound only guards against hanging).
    @Test("a download whose body pauses fails with .timeout at streamIdleTimeout", arguments: TransportKind.allCases)
    func idleLimit(_ kind: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let configuration = Client.Configuration(streamIdleTimeout: .milliseconds(300))
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let started = ContinuousClock.now
            let error = await expectParleyError(.timeout) {
                try await client.download(
                    FaultCall<Data>(path: "/dribble-body", query: ["interval": "60000"]),
                    to: folder.file("paused.bin")
                ).value
            }
            #expect(error?.message.contains("streamIdleTimeout") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(25))
        }
        #expect(!folder.names().contains("paused.bin"))
    }

    /// `/close-mid-body?length=600000` declares 600 000 bytes: refused before a byte is written.
    @Test(
        "a download that declares more than maxDownloadSize fails with .bodyTooLarge at once",
        arguments: TransportKind.allCases
    )
    func declaredTooLarge(_ kind: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let configuration = Client.Configuration(timeout: .seconds(30), maxDownloadSize: 1000)
        try await withFaultClient(kind, configuration: configuration) { client, _ in
            let error = await expectParleyError(.bodyTooLarge) {
                try await client.download(
                    FaultCall<Data>(path: "/close-mid-body", query: ["length": "600000"]),
                    to: folder.file("big.bin")
                ).value
            }
            #expect(error?.message.contains("600000") == true, "\(String(describing: error))")
        }
        #expect(folder.names() == [])
    }
}
