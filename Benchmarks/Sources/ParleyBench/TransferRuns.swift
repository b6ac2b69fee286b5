import Foundation
import Parley

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The 1 GiB upload and download against curl on both transports, and each one's peak memory in a process of its
/// own. `--quick` transfers 256 MiB, 2 timed rounds; the full run 1 GiB, 5 rounds (names keep `1g`).
struct TransferRuns {
    /// Lines printed above the table.
    var notes: [String] = []
    var table: [String] = []
    /// `ratio NAME VALUE` and `rss NAME MIB` lines.
    var ratios: [String] = []

    /// Runs the transfer comparisons and memory measurements that `only` names (all when `nil`; `transfers`
    /// selects the four comparisons, `rss` the four memory lines, one being `rss-NAME`) and returns their rows.
    /// The diagnostic rows run only when named (or `diagnostics` is): a bare URLSession upload takes ~15 s per GiB.
    static func run(baseURL: URL, client parley: Client, quick: Bool, only: Set<String>?) async throws -> TransferRuns {
        var rows = TransferRuns()
        func selected(_ name: String, _ group: String) -> Bool {
            guard let only else { return true }
            return only.contains(name) || only.contains(group)
        }
        let transfers = [
            "upload-1g-vs-curl", "upload-1g-urlsession-vs-curl", "download-1g-vs-curl", "download-1g-urlsession-vs-curl",
        ]
        // Table only, no ratio line: URLSession without Parley against curl (selected by name or `diagnostics`).
        let diagnostics = ["diagnostic-upload-1g-rawurlsession-vs-curl", "diagnostic-download-1g-rawurlsession-vs-curl"]
        let memory = [
            ("upload-1g", "ahc", "upload"), ("upload-1g-urlsession", "urlsession", "upload"),
            ("download-1g", "ahc", "download"), ("download-1g-urlsession", "urlsession", "download"),
            // URLSessionTransport(configuration:backPressure: true): the opt-in that bounds a download's buffer.
            ("download-1g-urlsession-backpressure", "urlsession-backpressure", "download"),
        ]
        let wanted =
            transfers.filter { selected($0, "transfers") }
            + diagnostics.filter { only?.contains($0) == true || only?.contains("diagnostics") == true }
        let wantedMemory = memory.filter { selected("rss-" + $0.0, "rss") }
        guard !wanted.isEmpty || !wantedMemory.isEmpty else { return rows }
        let size = quick ? 256 << 20 : 1 << 30
        let transferRounds = quick ? 2 : 5
        let urlSessionClient = Client(baseURL: baseURL, transport: TransferSetup.urlSessionTransport())
        let setup = try await TransferSetup.make(baseURL: baseURL, size: size, probe: parley)
        defer { setup.remove() }
        rows.notes.append(
            "Transfers: \(sizeLabel(size)) each\(quick ? " (--quick: the `1g` workloads move 256 MiB)" : ""), "
                + "\(transferRounds) rounds per side after one untimed transfer each, alternating Parley and curl; "
                + "download route /\(setup.downloadRoute)."
        )
        let downloaded = setup.destination("download.bin")
        let clients = [("AsyncHTTPClientTransport", parley), ("URLSessionTransport", urlSessionClient)]
        let session = URLSession(configuration: TransferSetup.urlSessionConfiguration())
        for name in wanted {
            let (label, client) = name.contains("urlsession") ? clients[1] : clients[0]
            let comparison =
                name == diagnostics[0]
                ? TransferComparison(
                    name: name,
                    parleyName: "URLSession.upload(for:fromFile:), no Parley",
                    curlName: "curl -T FILE",
                    parley: { try await setup.rawURLSessionUpload(session) },
                    curl: { try await setup.curlUpload() },
                    afterEach: {}
                )
                : name == diagnostics[1]
                    ? TransferComparison(
                        name: name,
                        parleyName: "URLSession.download(from:) + move, no Parley",
                        curlName: "curl -o FILE",
                        parley: { try await setup.rawURLSessionDownload(session, to: downloaded) },
                        curl: { try await setup.curlDownload(to: downloaded) },
                        afterEach: { try? FileManager.default.removeItem(at: downloaded) }
                    )
                    : name.hasPrefix("upload")
                        ? TransferComparison(
                            name: name,
                            parleyName: "Parley upload(fromFile:), \(label)",
                            curlName: "curl -T FILE",
                            parley: { try await setup.upload(with: client) },
                            curl: { try await setup.curlUpload() },
                            afterEach: {}
                        )
                        : TransferComparison(
                            name: name,
                            parleyName: "Parley download(to:), \(label)",
                            curlName: "curl -o FILE",
                            parley: { try await setup.download(with: client, to: downloaded) },
                            curl: { try await setup.curlDownload(to: downloaded) },
                            afterEach: { try? FileManager.default.removeItem(at: downloaded) }
                        )
            let (a, b) = try await comparison.run(rounds: transferRounds, size: size)
            let ratio = a.medianThroughput / b.medianThroughput
            rows.table.append(
                "| \(name) (\(sizeLabel(size))) | \(comparison.parleyName) | \(Int(a.medianThroughput)) MiB/s | "
                    + "\(a.percentile(0.5).milliseconds) | \(a.percentile(0.99).milliseconds) | \(comparison.curlName) | "
                    + "\(Int(b.medianThroughput)) MiB/s | \(b.percentile(0.5).milliseconds) | \(b.percentile(0.99).milliseconds) | "
                    + String(format: "%.3f", ratio) + " |"
            )
            if !name.hasPrefix("diagnostic-") { rows.ratios.append("ratio \(name) " + String(format: "%.3f", ratio)) }
            FileHandle.standardError.write(Data("done: \(name)\n".utf8))
        }
        let transportLabels = [
            "ahc": "AsyncHTTPClientTransport", "urlsession": "URLSessionTransport",
            "urlsession-backpressure": "URLSessionTransport(backPressure: true)",
        ]
        // The peak varies a lot from run to run (scheduling decides how far a reader falls behind a writer), and the
        // target is about every run: each line reports the worst of several, each in a fresh child process.
        let memoryRuns = quick ? 3 : 5
        for (name, transport, direction) in wantedMemory {
            var figures: [RSSTransfer.Figure] = []
            for _ in 0..<memoryRuns {
                figures.append(
                    try await RSSTransfer.measure(transport: transport, direction: direction, setup: setup, server: baseURL)
                )
            }
            guard let figure = figures.max(by: { $0.aboveIdleMiB < $1.aboveIdleMiB }) else { continue }
            let mib = figure.aboveIdleMiB
            let all = figures.map { String(format: "%.1f", $0.aboveIdleMiB) }.joined(separator: ", ")
            rows.table.append(
                "| rss \(name) (\(sizeLabel(size))) | \(transportLabels[transport] ?? transport): peak RSS "
                    + "above idle, worst of \(memoryRuns) runs (\(all) MiB; idle \(figure.baselineKiB / 1_024) MiB, transfer "
                    + String(format: "%.1f s", figure.seconds)
                    + (figures.allSatisfy(\.peakReset) ? "" : ", peak not reset: an upper bound") + ") | "
                    + String(format: "%.1f MiB", mib) + " | | | target | < 32 MiB | | | " + (mib < 32 ? "met" : "not met") + " |"
            )
            rows.ratios.append("rss \(name) " + String(format: "%.1f", mib))
            FileHandle.standardError.write(Data("done: rss \(name)\n".utf8))
        }
        try await urlSessionClient.shutdown()
        session.finishTasksAndInvalidate()
        return rows
    }
}
