public import OpenAPIRuntime
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Client {
    /// A client on AsyncHTTPClient's shared `HTTPClient` (the default on Linux): nothing to shut down.
    public init(
        baseURL: URL,
        headers: Headers = [:],
        middlewares: [any ClientMiddleware] = [],
        configuration: Configuration = Configuration()
    ) {
        self.init(
            baseURL: baseURL,
            transport: AsyncHTTPClientTransport.shared,
            headers: headers,
            middlewares: middlewares,
            configuration: configuration
        )
    }
}
