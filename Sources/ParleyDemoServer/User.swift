/// A user of the demo REST API.
struct User: Codable, Sendable, Equatable {
    /// Unique identifier, assigned by the store.
    var id: Int
    /// Display name.
    var name: String
    /// E-mail address.
    var email: String
}
