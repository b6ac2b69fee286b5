extension ResponseDecompression {
    /// The decompression limits of the call in progress, for a transport whose HTTP stack inflates response bodies
    /// itself before Parley sees them (URLSession: libcurl on Linux), so that ``maxSize`` and ``maxRatio`` bound
    /// what it inflates too.
    ///
    /// `Client` sets it (in its ``CallScope``) around each request it hands to its transport: its
    /// `Configuration.decompression`, `nil` when
    /// decompression is off. A transport used outside a `Client` (in an OpenAPI-generated client) gets the default
    /// limits.
    package static var forTransport: ResponseDecompression? {
        guard let scope = CallScope.current else { return ResponseDecompression() }
        return scope.decompression
    }
}
