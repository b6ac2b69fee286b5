package import HTTPTypes

/// The one reader of media types (RFC 9110, section 8.3.1: `type "/" subtype *( OWS ";" OWS parameter )`), for
/// `Content-Type` checks by validation, the cache, coalescing and MCP.
///
/// Only the essence is kept: `type/subtype`, lowercased (the names are case-insensitive), without whitespace or
/// parameters.
package struct MediaType: Sendable, Hashable {
    /// `type/subtype` lowercased, without parameters; the text before any `;` when it has no `/`, empty for none.
    package let essence: String

    /// The media type `text` (a `Content-Type` value, or a pattern such as `text/*`) names.
    package init(_ text: some StringProtocol) {
        let beforeParameters = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        essence = beforeParameters.trimmingHTTPWhitespace().lowercased()
    }

    /// The media type of `response`'s `Content-Type`; `nil` when it has none.
    package init?(of response: HTTPResponse) {
        guard let value = response.headerFields[.contentType] else { return nil }
        self.init(value)
    }

    /// The type: `text` of `text/plain`.
    package var type: Substring {
        essence.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    /// The subtype: `plain` of `text/plain`; empty when there is no `/`.
    package var subtype: Substring {
        essence.firstIndex(of: "/").map { essence[essence.index(after: $0)...] } ?? ""
    }

    /// Whether this (a response's type) matches `pattern` (`*/*`, `text/*`, or exact).
    package func matches(_ pattern: MediaType) -> Bool {
        (pattern.type == "*" || pattern.type == type) && (pattern.subtype == "*" || pattern.subtype == subtype)
    }

    /// `text/event-stream`: Server-Sent Events, a body that never ends by itself.
    package static let eventStream = MediaType("text/event-stream")

    /// `application/json`.
    package static let json = MediaType("application/json")
}
