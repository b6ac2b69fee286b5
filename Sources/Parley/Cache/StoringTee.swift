import OpenAPIRuntime

/// Collects a cacheable body as its caller reads it (a ``BodyWatcher``, so the body streams on unchanged, under the
/// caller's deadlines), and hands the bytes to `store` when a reading reaches the end within `limit` bytes, before the reader sees the end (so
/// that a call made after this one finds the entry). A reading
/// that fails, passes the limit or is abandoned hands nothing.
struct StoringTee: BodyWatcher {
    /// One reading's bytes; `nil` once they passed the limit.
    typealias Reading = [UInt8]?

    let limit: Int
    let store: @Sendable ([UInt8]) async -> Void

    func startReading(of body: HTTPBody) -> [UInt8]? { [] }

    func didRead(_ chunk: ArraySlice<UInt8>, _ reading: inout [UInt8]?) {
        guard let count = reading?.count else { return }
        guard count + chunk.count <= limit else {
            reading = nil
            return
        }
        reading?.append(contentsOf: chunk)
    }

    func didFinish(_ reading: inout [UInt8]?) async {
        guard let bytes = reading else { return }
        reading = nil
        await store(bytes)
    }
}
