import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyURLSession

/// Peak resident memory of one transfer, measured in a process that does nothing else:
/// `ParleyBench rss-transfer --server URL --transport ahc|urlsession|urlsession-backpressure --direction upload|download --bytes N
/// --file PATH [--route download|bytes]` (PATH: the file to upload, or where to download to).
///
/// The child sets up the client and makes one small request (the connection open, the code paths loaded), then
/// reads its resident set (VmRSS) as the idle baseline and resets the kernel's peak (VmHWM, by writing 5 to
/// /proc/self/clear_refs), transfers, and prints the peak minus the baseline. The main run spawns it per
/// transport and direction.
enum RSSTransfer {
    /// The figures one child prints, in KiB.
    struct Figure {
        let baselineKiB: Int
        let peakKiB: Int
        /// Whether the peak was reset after the baseline; if not, the peak may be the start-up's.
        let peakReset: Bool
        let seconds: Double

        var aboveIdleMiB: Double { Double(peakKiB - baselineKiB) / 1_024 }
    }

    /// The child: one transfer, then one line `rss-transfer baseline_kib=… peak_kib=… peak_reset=… seconds=…`.
    static func child(_ arguments: [String]) async throws {
        func value(_ flag: String) throws -> String {
            guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else {
                throw BenchError.usage("rss-transfer needs \(flag)")
            }
            return arguments[index + 1]
        }
        guard let baseURL = URL(string: try value("--server")), let size = Int(try value("--bytes")) else {
            throw BenchError.usage("rss-transfer: bad --server or --bytes")
        }
        let file = URL(fileURLWithPath: try value("--file"))
        let route = (try? value("--route")) ?? "download"
        let direction = try value("--direction")
        let transport: any ShutdownTransport =
            switch try value("--transport") {
            case "urlsession": TransferSetup.urlSessionTransport()
            case "urlsession-backpressure": TransferSetup.urlSessionTransport(backPressure: true)
            default: AsyncHTTPClientTransport(configuration: AsyncHTTPClientTransport.defaultConfiguration)
            }
        let client = Client(baseURL: baseURL, transport: transport)
        let setup = TransferSetup(
            baseURL: baseURL,
            size: size,
            folder: file.deletingLastPathComponent(),
            source: file,
            downloadRoute: route
        )
        _ = try await client.send(GetItem())
        try await Task.sleep(for: .milliseconds(200))
        let baseline = try MemoryStatus.read()
        let reset = MemoryStatus.resetPeak()
        let clock = ContinuousClock()
        let start = clock.now
        switch direction {
        case "upload": try await setup.upload(with: client)
        case "download": try await setup.download(with: client, to: file)
        default: throw BenchError.usage("rss-transfer: --direction upload|download")
        }
        let elapsed = clock.now - start
        let after = try MemoryStatus.read()
        print("rss-transfer baseline_kib=\(baseline.rss) peak_kib=\(after.peak) peak_reset=\(reset) seconds=\(elapsed.seconds)")
        try await client.shutdown()
    }

    /// The parent: runs the child for one transport and direction and reads its line.
    static func measure(transport: String, direction: String, setup: TransferSetup, server: URL) async throws -> Figure {
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let file = direction == "upload" ? setup.source : setup.destination("rss-download.bin")
        defer { if direction == "download" { try? FileManager.default.removeItem(at: file) } }
        let (status, output) = try await ChildProcess.run(
            executable,
            [
                "rss-transfer", "--server", server.absoluteString, "--transport", transport, "--direction", direction,
                "--bytes", String(setup.size), "--file", file.path, "--route", setup.downloadRoute,
            ]
        )
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0, let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rss-transfer ") }) else {
            throw BenchError.mismatch("rss-transfer \(transport) \(direction) exited with \(status): \(text)")
        }
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let baseline = fields["baseline_kib"].flatMap({ Int($0) }), let peak = fields["peak_kib"].flatMap({ Int($0) }),
            let seconds = fields["seconds"].flatMap({ Double($0) })
        else { throw BenchError.mismatch("rss-transfer printed \(line)") }
        return Figure(baselineKiB: baseline, peakKiB: peak, peakReset: fields["peak_reset"] == "true", seconds: seconds)
    }
}

/// This process's resident set from /proc/self/status, in KiB.
enum MemoryStatus {
    static func read() throws -> (rss: Int, peak: Int) {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        func kib(_ key: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap {
                    Int($0.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
                }
        }
        guard let rss = kib("VmRSS"), let peak = kib("VmHWM") else {
            throw BenchError.mismatch("no VmRSS/VmHWM in /proc/self/status")
        }
        return (rss, peak)
    }

    /// Resets VmHWM to the current resident set (Linux 4.0 and later); false when the kernel refused.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }
}
