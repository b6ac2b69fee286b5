import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Downloads to file")
struct DownloadTests {
    static let size = Pattern.largeTransferSize

    @Test(
        "a large download (64 MiB) is byte-identical (SHA-256), with monotonic progress and no file left behind",
        arguments: TransportKind.allCases
    )
    func largeDownload(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let destination = folder.file("large.bin")
        let log = ProgressLog()
        try await withDemoClient(transport) { client, _ in
            let result = try await client.download(Download(size: Self.size), to: destination, onProgress: log.record).value
            #expect(result.bytes == Int64(Self.size))
            #expect(result.resumedFrom == 0)
            #expect(result.response.status == .ok)
        }
        #expect(try sha256(of: destination) == Pattern.sha256(Self.size))
        #expect(folder.names() == ["large.bin"])
        log.expectMonotonic(endingAt: Int64(Self.size))
    }

    @Test(
        "a download cut mid-body leaves no file under the final name; resume fetches the rest and the file is byte-identical",
        arguments: TransportKind.allCases
    )
    func resumeAfterCut(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let destination = folder.file("resumed.bin")
        let size = 8 << 20
        let cut = 3 << 20 + 12345
        try await withDemoClient(transport) { client, _ in
            let first = await expectParleyError(.transport) {
                try await client.download(Download(size: size, headers: ["X-Cut-After": String(cut)]), to: destination).value
            }
            // What was received before the cut is kept: the partial file holds exactly the bytes the error reports.
            let kept = try #require(first?.keptDownload, "\(String(describing: first))")
            #expect(kept.path.hasSuffix(".resumed.bin.parley-partial"))
            #expect(kept.bytes > 0 && kept.bytes <= Int64(cut))
            #expect((try FileManager.default.attributesOfItem(atPath: kept.path)[.size] as? Int).map(Int64.init) == kept.bytes)
            #expect(first?.description.contains("resume: true") == true, "\(String(describing: first))")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(folder.names().contains(".resumed.bin.parley-partial"))

            let log = ProgressLog()
            let result = try await client.download(Download(size: size), to: destination, resume: true, onProgress: log.record)
                .value
            #expect(result.response.status.code == 206)
            #expect(result.resumedFrom > 0 && result.resumedFrom <= Int64(cut))
            #expect(result.bytes == Int64(size))
            #expect(log.all.first?.completedBytes == result.resumedFrom)
            log.expectMonotonic(endingAt: Int64(size))
        }
        #expect(try sha256(of: destination) == Pattern.sha256(size))
        #expect(folder.names() == ["resumed.bin"])
    }

    @Test(
        "resume restarts from the first byte when the file changed on the server (If-Range fails)",
        arguments: TransportKind.allCases
    )
    func resumeAfterChange(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let destination = folder.file("changed.bin")
        let size = 2 << 20
        try await withDemoClient(transport) { client, _ in
            _ = await expectParleyError(.transport) {
                try await client.download(Download(size: size, headers: ["X-Cut-After": "100000"]), to: destination).value
            }
            let result = try await client.download(
                Download(size: size, headers: ["X-ETag": "\"changed\""]),
                to: destination,
                resume: true
            ).value
            #expect(result.response.status == .ok)
            #expect(result.resumedFrom == 0)
        }
        #expect(try sha256(of: destination) == Pattern.sha256(size))
    }

    @Test("without range support a cut download keeps nothing, and a resume starts over", arguments: TransportKind.allCases)
    func noRanges(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let destination = folder.file("plain.bin")
        let size = 1 << 20
        try await withDemoClient(transport) { client, _ in
            _ = await expectParleyError(.transport) {
                try await client.download(
                    Download(size: size, options: [("ranges", "false")], headers: ["X-Cut-After": "5000"]),
                    to: destination
                ).value
            }
            #expect(folder.names().isEmpty)
            let result = try await client.download(
                Download(size: size, options: [("ranges", "false")]),
                to: destination,
                resume: true
            ).value
            #expect(result.resumedFrom == 0)
        }
        #expect(try sha256(of: destination) == Pattern.sha256(size))
    }

    @Test(
        "a 404 fails with the status and leaves nothing; a missing folder fails before sending",
        arguments: TransportKind.allCases
    )
    func failures(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        try await withDemoClient(transport) { client, _ in
            let notFound = await expectParleyError(.unacceptableStatus) {
                try await client.download(Get<Data>(path: "/no-such-file"), to: folder.file("x.bin")).value
            }
            #expect(notFound?.status == .notFound)
            #expect(folder.names().isEmpty)
            let noFolder = await expectParleyError(.invalidRequest) {
                try await client.download(Download(size: 10), to: folder.url.appending(path: "missing/x.bin")).value
            }
            #expect(noFolder?.message.contains("does not exist") == true)
        }
    }

    @Test(
        "a chunked download (no Content-Length) completes with an unknown total until the end",
        arguments: TransportKind.allCases
    )
    func chunked(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let destination = folder.file("chunked.bin")
        try await withDemoClient(transport) { client, _ in
            let result = try await client.download(Download(size: 1_000_003, options: [("chunked", "true")]), to: destination)
                .value
            #expect(result.bytes == 1_000_003)
        }
        #expect(try sha256(of: destination) == Pattern.sha256(1_000_003))
    }
}
