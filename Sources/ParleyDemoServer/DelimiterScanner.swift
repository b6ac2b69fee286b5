#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds a fixed byte pattern in a stream fed in arbitrary pieces (Knuth–Morris–Pratt), e.g. a
/// multipart body's close delimiter `CRLF--boundary--`, which may straddle two chunks.
///
/// Outside a partial match it jumps to the next candidate first byte with `memchr`, so scanning a
/// large body stays fast even in debug builds.
struct DelimiterScanner: Sendable {
    private let pattern: [UInt8]
    private let fallback: [Int]
    private var matched = 0
    /// Whether the pattern has been seen.
    private(set) var found = false

    /// Scans for `pattern` (not empty).
    init(pattern: [UInt8]) {
        self.pattern = pattern
        // fallback[i]: length of the longest proper prefix of pattern[0...i] that is also its suffix.
        var fallback = Array(repeating: 0, count: pattern.count)
        var length = 0
        for index in pattern.indices.dropFirst() {
            while length > 0, pattern[index] != pattern[length] { length = fallback[length - 1] }
            if pattern[index] == pattern[length] { length += 1 }
            fallback[index] = length
        }
        self.fallback = fallback
    }

    /// Scans the next piece of the stream.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        guard !self.found, let first = self.pattern.first, let base = bytes.baseAddress else { return }
        var index = 0
        while index < bytes.count {
            if self.matched == 0 {
                // Skip to the next byte that can start a match.
                guard let hit = memchr(base + index, Int32(first), bytes.count - index) else { return }
                index = base.distance(to: UnsafeRawPointer(hit))
            }
            let byte = bytes[index]
            index += 1
            while self.matched > 0, byte != self.pattern[self.matched] { self.matched = self.fallback[self.matched - 1] }
            if byte == self.pattern[self.matched] { self.matched += 1 }
            if self.matched == self.pattern.count {
                self.found = true
                return
            }
        }
    }

    /// Scans the next piece of the stream.
    mutating func scan(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { self.scan($0) }
    }
}
