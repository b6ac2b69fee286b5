/// One change a server announces to a subscription (``MCPClient/subscribe(resources:listChanges:)``).
public enum MCPUpdate: Sendable, Hashable {
    /// The resource `uri` changed: read it again (`notifications/resources/updated`).
    case resourceUpdated(uri: String)
    /// The list of tools, prompts or resources changed: list it again (`notifications/…/list_changed`).
    case listChanged(MCPListKind)
}

/// A list of the server's whose changes a subscription can follow.
public enum MCPListKind: String, Sendable, Hashable, CaseIterable {
    /// `tools/list`.
    case tools
    /// `prompts/list`.
    case prompts
    /// `resources/list`.
    case resources

    /// The notification announcing a change of the list.
    var notification: String { "notifications/\(rawValue)/list_changed" }
}
