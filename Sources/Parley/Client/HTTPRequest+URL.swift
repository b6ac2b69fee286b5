package import HTTPTypes

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension HTTPRequest {
    /// The absolute URL of the request: from its scheme, authority and path when set (as `Client` sets them),
    /// otherwise `baseURL` followed by the path. Shared by the transports and by error summaries.
    package func absoluteURLString(baseURL: URL?) -> String {
        let path = self.path ?? "/"
        if let scheme, let authority {
            return scheme + "://" + authority + path
        }
        var base = baseURL?.absoluteString ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }
}
