import NIOConcurrencyHelpers

/// The demo server's access tokens and what `/auth/*` saw; every server instance has its own.
///
/// One token is current at a time: `POST /auth/token` issues a new one (the previous stops working),
/// `POST /auth/rotate` replaces it with one nobody holds, as if the server had revoked it.
final class AuthStore: Sendable {
    /// Counts reported by `GET /auth/stats`.
    struct Stats: Encodable, Sendable {
        /// Tokens issued by `POST /auth/token`.
        var issued = 0
        /// Times `POST /auth/rotate` revoked the current token.
        var rotations = 0
        /// Bearer-protected requests that carried the current token.
        var accepted = 0
        /// Bearer-protected requests answered 401.
        var rejected = 0
    }

    private struct State {
        var current: String?
        var currentNumber = 0
        /// The scopes of the current token.
        var currentScopes: Set<String> = []
        var stats = Stats()
    }

    private let state = NIOLockedValueBox(State())

    /// Makes a new token with `scopes` current and returns it with its number (1, 2, …).
    func issue(scopes: Set<String> = ["read"]) -> (token: String, number: Int) {
        self.state.withLockedValue { state in
            state.currentScopes = scopes
            state.stats.issued += 1
            let number = state.stats.issued
            let token = "demo-token-\(number)-\(Self.randomHex())"
            state.current = token
            state.currentNumber = number
            return (token, number)
        }
    }

    /// Revokes the current token: a token that was never handed out becomes current.
    func rotate() {
        self.state.withLockedValue { state in
            state.stats.rotations += 1
            state.current = "revoked-\(Self.randomHex())"
            state.currentNumber = 0
        }
    }

    /// Counts a request with `authorization`; returns the number of its token if it is `Bearer <current>`.
    func check(authorization: String?) -> Int? {
        checkScoped(authorization: authorization)?.number
    }

    /// ``check(authorization:)``, with the token's scopes.
    func checkScoped(authorization: String?) -> (number: Int, scopes: Set<String>)? {
        self.state.withLockedValue { state in
            guard let current = state.current, authorization == "Bearer \(current)" else {
                state.stats.rejected += 1
                return nil
            }
            state.stats.accepted += 1
            return (state.currentNumber, state.currentScopes)
        }
    }

    /// The counts so far.
    var stats: Stats {
        self.state.withLockedValue { $0.stats }
    }

    private static func randomHex() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }
}
