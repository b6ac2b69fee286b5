/// Human-readable sizes, rates and durations for progress bars and summaries.
enum ByteCount {
    private static let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]

    /// `512 B`, `460.8 MiB`, `1.0 GiB`: binary units, one decimal.
    static func format(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return "\(tenths(value)) \(units[unit])"
    }

    /// `112.3 MiB/s` for `bytes` moved in `elapsed`; `-` while no time has passed.
    static func rate(_ bytes: Int64, in elapsed: Duration) -> String {
        let seconds = self.seconds(elapsed)
        guard seconds > 0 else { return "- B/s" }
        return format(Int64(Double(max(0, bytes)) / seconds)) + "/s"
    }

    /// `0.42 s`, `12.3 s`.
    static func duration(_ elapsed: Duration) -> String {
        let seconds = self.seconds(elapsed)
        if seconds < 10 {
            let hundredths = Int((seconds * 100).rounded())
            let fraction = hundredths % 100
            return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
        }
        return "\(tenths(seconds)) s"
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `value` with one decimal, without Foundation's formatters.
    private static func tenths(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
