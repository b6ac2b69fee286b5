import NIOConcurrencyHelpers

/// In-memory, thread-safe user store; every server instance has its own.
final class UserStore: Sendable {
    private struct State {
        var users: [Int: User]
        var nextID: Int
    }

    private let state: NIOLockedValueBox<State>

    /// Creates a store seeded with Ada Lovelace (1) and Alan Turing (2).
    init() {
        let seed = [
            User(id: 1, name: "Ada Lovelace", email: "ada@example.com"),
            User(id: 2, name: "Alan Turing", email: "alan@example.com"),
        ]
        let users = Dictionary(uniqueKeysWithValues: seed.map { ($0.id, $0) })
        self.state = NIOLockedValueBox(State(users: users, nextID: 3))
    }

    /// All users sorted by id, at most `limit` of them.
    func list(limit: Int?) -> [User] {
        let sorted = self.state.withLockedValue { $0.users.values.sorted { $0.id < $1.id } }
        guard let limit else { return sorted }
        return Array(sorted.prefix(limit))
    }

    /// The user with `id`, if any.
    func user(id: Int) -> User? {
        self.state.withLockedValue { $0.users[id] }
    }

    /// Stores a new user with the next free id and returns it.
    func create(name: String, email: String) -> User {
        self.state.withLockedValue { state in
            let user = User(id: state.nextID, name: name, email: email)
            state.nextID += 1
            state.users[user.id] = user
            return user
        }
    }

    /// Replaces name and e-mail of user `id`; returns `nil` if there is no such user.
    func update(id: Int, name: String, email: String) -> User? {
        self.state.withLockedValue { state in
            guard state.users[id] != nil else { return nil }
            let user = User(id: id, name: name, email: email)
            state.users[id] = user
            return user
        }
    }

    /// Deletes user `id`; returns whether it existed.
    func delete(id: Int) -> Bool {
        self.state.withLockedValue { $0.users.removeValue(forKey: id) != nil }
    }
}
