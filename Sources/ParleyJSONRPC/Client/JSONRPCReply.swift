public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a channel hands back for a message that expects an answer.
public struct JSONRPCReply: Sendable {
    /// The bytes of the peer's answer: one response object, or an array for a batch.
    public var data: Data
    /// The HTTP response head, on HTTP channels; errors carry it.
    public var head: HTTPResponse?

    /// A reply.
    public init(data: Data, head: HTTPResponse? = nil) {
        self.data = data
        self.head = head
    }
}
