import Foundation
import Parley

/// `--session NAME`: what one invocation leaves for the next to the same host, as httpie's sessions do: cookies, the
/// credentials given (`--auth`, `--bearer`) and custom header fields. One JSON file per host and name, under
/// `$XDG_CONFIG_HOME/parley/sessions/HOST_PORT/NAME.json` (`~/.config/…` without XDG_CONFIG_HOME), or at the path given
/// when NAME holds a `/`; readable by its owner only, since it holds credentials.
struct HTTPSession: Codable {
    /// Credentials kept for the host.
    enum Auth: Codable, Equatable {
        case basic(user: String, password: String)
        case bearer(String)
    }

    /// The origin the session was made for (`http://host:port`): a session file named by its path and used for
    /// another origin keeps its cookies (bound to their domains) but not its credentials nor header fields.
    var origin: String?
    /// Custom header fields, as name and value pairs (request-specific ones are not kept).
    var headers: [[String]] = []
    var auth: Auth?
    var cookies: [Cookie] = []

    /// The fields a session does not keep: they belong to one request.
    static let ephemeral: Set<String> = [
        "content-type", "content-length", "content-encoding", "if-match", "if-none-match",
        "if-modified-since", "if-unmodified-since", "if-range", "authorization", "cookie", "host",
    ]

    /// The file of session `name` for requests to `origin`.
    static func file(
        named name: String,
        for origin: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> URL
    {
        if name.contains("/") { return URL(fileURLWithPath: (name as NSString).expandingTildeInPath) }
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        let host =
            (origin.host ?? "unknown").replacingOccurrences(of: ":", with: "_")
            + "_\(origin.port ?? RequestTarget.defaultPort(of: origin.scheme ?? "") ?? 80)"
        let safeName = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        return config.appendingPathComponent("parley/sessions/\(host)/\(safeName).json")
    }

    /// The largest session file read (cookies, a credential and header fields fit in far less).
    static let maxSize = 4 << 20

    /// The session in `file` for `origin`, or a new one when there is none yet.
    static func load(from file: URL, for origin: URL) throws -> HTTPSession {
        // Opened, then checked on the descriptor: a link to a huge file or a pipe is refused without being read.
        guard let data = try PrivateFile.read(file.path, limit: maxSize, what: "The session file") else {
            return HTTPSession(origin: origin.absoluteString)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            var session = try decoder.decode(HTTPSession.self, from: data)
            if session.origin != origin.absoluteString {
                // Made for another host: its credentials and header fields stay there.
                session.auth = nil
                session.headers = []
                session.origin = origin.absoluteString
            }
            return session
        } catch {
            throw ParleyError(
                .decoding,
                "The session file \(file.path) is not a parley session (\(error)). Remove it to start afresh."
            )
        }
    }

    /// Writes the session to `file` (owner only), replacing it at once.
    func save(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try PrivateFile.write(try encoder.encode(self), to: file)
    }

    /// The kept header fields, then `given` (which replace those of the same names), less the ephemeral ones.
    mutating func keep(headers given: Headers) {
        var kept = headers.filter { $0.count == 2 }
        for field in given.fields where !Self.ephemeral.contains(field.name.lowercased()) {
            kept.removeAll { $0[0].lowercased() == field.name.lowercased() }
            kept.append([field.name, field.value])
        }
        headers = kept
    }

    /// The kept header fields as `Headers`.
    var keptHeaders: Headers {
        var fields = Headers()
        for pair in headers where pair.count == 2 { fields.append(pair[0], pair[1]) }
        return fields
    }
}
