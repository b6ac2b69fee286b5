public import Parley

/// A family of resources named by a URI template (RFC 6570), from ``MCPListResourceTemplates``.
public struct MCPResourceTemplate: Sendable, Hashable, Decodable {
    /// The URI template, such as `"file:///{path}"`; ``MCPComplete`` can complete its variables.
    public var uriTemplate: String
    /// Its name, for programs (and for people when there is no ``title``).
    public var name: String
    /// A name for people, if the server gives one.
    public var title: String?
    /// What the resources hold.
    public var description: String?
    /// The media type of every resource it names, if they share one.
    public var mimeType: String?
    /// Icons for a user interface, as sent.
    public var icons: [JSONValue]?
    /// Hints for the client (`audience`, `priority`, `lastModified` …), as sent.
    public var annotations: JSONValue?
    /// The `_meta` member, as sent.
    public var meta: JSONValue?

    private enum CodingKeys: String, CodingKey {
        case uriTemplate, name, title, description, mimeType, icons, annotations
        case meta = "_meta"
    }
}
