import ArgumentParser
import Foundation
import Parley

/// The arguments and options shared by `parley get`, `head`, `post`, `put`, `patch` and `delete`.
struct HTTPOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The URL. Without a scheme, http:// is assumed; ':8080/path' is short for http://localhost:8080/path.",
            valueName: "url"
        )
    )
    var url: String

    @Argument(
        help: ArgumentHelp(
            "Request items: key=value, key:=json, key=@file, key:=@file, Header:value, Header:, Header;, name==value.",
            valueName: "item"
        )
    )
    var items: [String] = []

    @Flag(name: .shortAndLong, help: "Send key=value fields as an application/x-www-form-urlencoded body, not JSON.")
    var form = false

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Basic authentication, split at the first colon ('user:' for an empty password).",
            valueName: "user:password"
        )
    )
    var auth: String?

    @Option(help: ArgumentHelp("Send 'Authorization: Bearer TOKEN'.", valueName: "token"))
    var bearer: String?

    @Flag(
        name: .shortAndLong,
        help: "Print the request (head and body) and the response head on standard error; credentials are redacted."
    )
    var verbose = false

    @OptionGroup var connection: ConnectionOptions

    @Option(
        help: ArgumentHelp(
            "Keep cookies, credentials and custom header fields for this host between runs, as httpie does (a file "
                + "per host and name under ~/.config/parley/sessions, or the path given when NAME holds a /).",
            valueName: "name"
        )
    )
    var session: String?

    @Flag(
        help: """
            Print the request as a curl command instead of sending it (after every header, credential and cookie is \
            added); secrets are written as shell variables ($AUTHORIZATION), named on standard error.
            """
    )
    var curl = false

    @Option(
        help: ArgumentHelp(
            "How to show the body: all (indented, coloured JSON), colors, format (indented, no colours) or none (the bytes "
                + "as received). Default: all on a terminal (format if NO_COLOR is set), none otherwise.",
            valueName: "mode"
        )
    )
    var pretty: HTTPPrettyMode?

    @Option(
        help: ArgumentHelp(
            "Give up after this many seconds (the whole call, body included); exit status 2.",
            valueName: "seconds"
        )
    )
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "Retry a failed attempt (connection error, timeout, 408, 429, 500, 502, 503, 504) up to N times.",
            valueName: "n"
        )
    )
    var retries = 0

    @Option(help: ArgumentHelp("Follow at most N redirects; 0 prints the redirect response itself.", valueName: "n"))
    var maxRedirects = 5

    func validate() throws {
        _ = try HTTPRequestItems(items.map(HTTPRequestItem.init(parsing:)), form: form)
        if auth != nil, bearer != nil { throw ValidationError("Give either --auth or --bearer, not both.") }
        if let auth, !auth.contains(":") {
            throw ValidationError("--auth takes user:password (write 'user:' for an empty password).")
        }
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be a number of seconds above 0 (at most a day).")
        }
        if retries < 0 || retries > 100 { throw ValidationError("--retries must be between 0 and 100.") }
        if maxRedirects < 0 || maxRedirects > 100 { throw ValidationError("--max-redirects must be between 0 and 100.") }
    }

    /// The user and password of `--auth`, split at the first colon.
    var credentials: (user: String, password: String)? {
        guard let auth, let colon = auth.firstIndex(of: ":") else { return nil }
        return (String(auth[..<colon]), String(auth[auth.index(after: colon)...]))
    }

    /// The URL with httpie's shorthands expanded: `:8080/x` and `localhost/x` become `http://localhost:8080/x` and
    /// `http://localhost/x`.
    var absoluteURL: String {
        if url.hasPrefix(":/") || url == ":" { return "http://localhost" + url.dropFirst() }
        if url.hasPrefix(":") { return "http://localhost" + url }
        return url.contains("://") ? url : "http://" + url
    }
}
