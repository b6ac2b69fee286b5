import CParleySystem

extension InflatingBody.Iterator {
    /// Fails with ``ParleyError/Kind/bodyTooLarge`` once the body inflated past the size limit, or past 1 MiB
    /// with a ratio over the ratio limit.
    func checkLimits() throws(ParleyError) {
        let limits = body.limits
        let coding = body.coding.name
        if inflated > limits.maxSize {
            throw failure(
                .bodyTooLarge,
                "The \(coding)-encoded response body inflated to \(inflated) bytes from \(compressed) compressed bytes, "
                    + "past the limit of \(limits.maxSize) bytes (ResponseDecompression.maxSize); reading stopped there. "
                    + "If such a body is expected, raise the limit: Client.Configuration.decompression = "
                    + "ResponseDecompression(maxSize: …), or stream it with decompression set to nil."
            )
        }
        guard inflated > InflatingBody.ratioThreshold else { return }
        let (allowed, overflow) = max(compressed, 1).multipliedReportingOverflow(by: Int64(max(limits.maxRatio, 0)))
        guard !overflow, inflated > allowed else { return }
        throw failure(
            .bodyTooLarge,
            "The \(coding)-encoded response body inflated to \(inflated) bytes from \(compressed) compressed bytes, "
                + "a ratio of \(inflated / max(compressed, 1)) to 1, past the limit of \(limits.maxRatio) to 1 "
                + "(ResponseDecompression.maxRatio): it looks like a decompression bomb, so reading stopped there. "
                + "If such a body is expected, raise the limit: Client.Configuration.decompression = "
                + "ResponseDecompression(maxRatio: …)."
        )
    }

    /// zlib found the compressed bytes invalid.
    func corrupt(status: Int32, message: String?) -> ParleyError {
        let reason = message ?? Self.describe(status)
        return failure(
            .decoding,
            "The \(body.coding.name)-encoded response body is corrupt: \(reason) (after \(compressed) compressed bytes, "
                + "\(inflated) inflated)."
        )
    }

    /// Bytes follow the end of the compressed stream (of its last gzip member).
    func trailingGarbage() -> ParleyError {
        failure(
            .decoding,
            "The \(body.coding.name)-encoded response body is corrupt: bytes follow the end of its compressed stream "
                + "(after \(compressed) compressed bytes, \(inflated) inflated)."
        )
    }

    /// The body ended in the middle of the compressed stream.
    func truncated() -> ParleyError {
        failure(
            .transport,
            "The response body ended before its \(body.coding.name) stream did, \(received) compressed bytes in "
                + "(\(inflated) inflated): the connection or the server cut it short."
        )
    }

    private func failure(_ kind: ParleyError.Kind, _ message: String) -> ParleyError {
        ParleyError(kind, message).attaching(response: body.response)
    }

    private static func describe(_ status: Int32) -> String {
        switch status {
        case Z_DATA_ERROR: "invalid compressed data"
        case Z_NEED_DICT: "the stream needs a preset dictionary"
        case Z_MEM_ERROR: "zlib ran out of memory"
        case Z_STREAM_ERROR: "zlib's stream state is invalid"
        case Z_VERSION_ERROR: "the zlib library is incompatible"
        default: "zlib returned \(status)"
        }
    }
}
