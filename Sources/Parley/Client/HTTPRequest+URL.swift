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
            var url = ""
            url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
            url += scheme
            url += "://"
            url += authority
            url += path
            return url
        }
        var base = baseURL?.absoluteString ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }
}
