import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// ``/Parley/ResponseDecompression``'s limits, applied to a body URLSession inflates itself.
///
/// libcurl (FoundationNetworking on Linux) decodes every coding it knows (`gzip`, `deflate`, and `br` or `zstd`
/// when built with them) whatever the request asked for, and cannot be told not to: Parley sees only the inflated
/// bytes, and not how many compressed bytes have arrived. So the ratio is taken against the whole compressed body:
/// its `Content-Length` when the response has one, or 1 MiB when it does not (a body of unknown compressed size
/// inflates to at most `maxRatio` MiB, 100 MiB by default). Past either limit the body fails with
/// ``/Parley/ParleyError/Kind/bodyTooLarge`` and the task is cancelled.
struct InflationLimit: Sendable {
    /// The coding the response named, for the message.
    let coding: String
    /// The limits.
    let limits: ResponseDecompression
    /// The compressed body's size, when the response declared it.
    let compressedLength: Int64?
    /// Inflated bytes seen so far.
    private(set) var inflated: Int64 = 0

    /// Bodies whose ratio is not checked until they inflated past this, as on the other transports.
    static let ratioThreshold: Int64 = 1 << 20

    /// The limits for `response`'s body, or `nil` when it is not content-coded.
    init?(response: HTTPURLResponse, limits: ResponseDecompression) {
        let codings = response.allHeaderFields
            .compactMap { key, value -> String? in
                guard let key = key as? String, key.lowercased() == "content-encoding" else { return nil }
                return value as? String
            }
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        coding = codings.joined(separator: ", ")
        self.limits = limits
        compressedLength = URLSessionTransport.declaredLength(of: response)
    }

    /// The most the body may inflate to.
    var allowed: Int64 {
        let base = compressedLength ?? Self.ratioThreshold
        let (byRatio, overflow) = base.multipliedReportingOverflow(by: Int64(max(limits.maxRatio, 0)))
        let ratioLimit = overflow ? Int64.max : max(byRatio, Self.ratioThreshold)
        return min(limits.maxSize, ratioLimit)
    }

    /// Counts `count` more inflated bytes; returns the failure once they are past a limit.
    mutating func inflated(_ count: Int) -> ParleyError? {
        let before = inflated
        inflated += Int64(count)
        // Reported once, when the count first passes the limit.
        guard inflated > allowed, before <= allowed else { return nil }
        let advice = "If such a body is expected, raise the limit (Client.Configuration.decompression = "
        if inflated > limits.maxSize {
            return ParleyError(
                .bodyTooLarge,
                "The \(coding)-encoded response body inflated to more than \(limits.maxSize) bytes, past the limit of "
                    + "\(limits.maxSize) bytes (ResponseDecompression.maxSize); URLSession inflates it itself, and "
                    + "reading stopped there. \(advice)ResponseDecompression(maxSize: …)), or use "
                    + "AsyncHTTPClientTransport and stream it with decompression set to nil."
            )
        }
        let compressed =
            compressedLength.map { "from a body of \($0) compressed bytes (its Content-Length)" }
            ?? "from a body of unknown compressed size (no Content-Length: URLSession inflates it itself and does not "
            + "tell how many compressed bytes arrived, so it may inflate to at most maxRatio MiB)"
        return ParleyError(
            .bodyTooLarge,
            "The \(coding)-encoded response body inflated to more than \(allowed) bytes \(compressed), past the limit "
                + "of \(limits.maxRatio) to 1 (ResponseDecompression.maxRatio): it looks like a decompression bomb, so "
                + "reading stopped there. \(advice)ResponseDecompression(maxRatio: …))."
        )
    }
}
