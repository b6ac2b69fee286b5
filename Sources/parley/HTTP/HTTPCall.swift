import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient

/// One run of `parley get|head|post|put|patch|delete`: builds the request from the options and items, sends it,
/// writes the answer, and turns the outcome into the exit status (``HTTPExitStatus``).
struct HTTPCall {
    let method: HTTPRequest.Method
    let options: HTTPOptions

    func run() async throws {
        let items = try HTTPRequestItems(options.items.map(HTTPRequestItem.init(parsing:)), form: options.form)
        var endpoint = try URLEndpoint(url: options.absoluteURL, method: method, name: method.rawValue)
        // --session: what earlier runs to this host kept (cookies, credentials, header fields).
        let sessionFile = options.session.map { HTTPSession.file(named: $0, for: endpoint.origin) }
        let session = try sessionFile.map { try HTTPSession.load(from: $0, for: endpoint.origin) }
        let auth = self.auth(session)
        endpoint.headers = headers(for: items, session: session, auth: auth)
        endpoint.query.items += items.query
        endpoint.body = items.body.map { .stream(HTTPBody($0), contentType: nil) } ?? .none
        endpoint.acceptableStatusCodes = .any  // the status decides the exit status, after the body is written
        var configuration = Client.Configuration(
            timeout: options.timeout.map { .seconds($0) },
            redirects: RedirectPolicy(maxRedirects: options.maxRedirects)
        )
        // Cookies live for the invocation, redirect hops included (`parley get URL/cookies/set?a=b` shows `a`), and
        // with --session from one invocation to the next.
        let jar = CookieJar()
        for cookie in session?.cookies ?? [] { jar.insert(cookie) }
        configuration.cookies = jar
        if options.curl {
            // The request goes through every stage, and the last one prints it instead of sending it.
            let client = Client(
                baseURL: endpoint.origin,
                transport: CurlPrintingTransport(),
                middlewares: middlewares(requestBody: items.body, auth: auth),
                configuration: configuration
            )
            _ = try await client.response(for: endpoint)
            return
        }
        defer {
            if var kept = session, let sessionFile {
                kept.keep(headers: items.headers)
                kept.auth = auth
                kept.cookies = jar.cookies
                do {
                    try kept.save(to: sessionFile)
                } catch {
                    Terminal.writeError("parley: the session was not saved: \(error)\n")
                }
            }
        }
        let transport: any ClientTransport
        do {
            // --verify, --cert, --pinned-pubkey: a client of its own; proxies: one per proxy.
            transport = try options.connection.transport()
        } catch {
            Terminal.writeError("parley: \(error.message)\n")
            throw ExitCode(HTTPExitStatus.code(for: error))
        }
        let client = Client(
            baseURL: endpoint.origin,
            transport: transport,
            middlewares: middlewares(requestBody: items.body, auth: auth),
            configuration: configuration
        )
        // A proxying transport owns its HTTPClients: shut down whatever happens (AsyncHTTPClient stops a process
        // whose client was not).
        do {
            try await exchange(endpoint, client: client, items: items, auth: auth)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
    }

    /// Sends the request and writes the answer.
    private func exchange(_ endpoint: URLEndpoint, client: Client, items: HTTPRequestItems, auth: HTTPSession.Auth?) async throws
    {
        let started = ContinuousClock.now
        do {
            let answer = try await client.stream(endpoint)
            let status = answer.response.status
            var excerpt: Data?
            if method == .head {
                Terminal.writeOutput(HTTPExchangeLog.describe(answer.response))
            } else {
                let printer = HTTPBodyPrinter(mode: options.pretty ?? .automatic)
                let contentType = answer.response.headerFields[.contentType]
                excerpt = try await withDeadline(options.timeout.map { .seconds($0) - (ContinuousClock.now - started) }, answer) {
                    try await printer.output(answer.body, contentType: contentType)
                }
            }
            guard (200..<300).contains(status.code) else {
                throw ParleyError(
                    .unacceptableStatus,
                    "\(method.rawValue) \(displayURL(items)) was answered \(status.code) \(status.reasonPhrase)"
                )
                .attaching(response: answer.response, body: excerpt)
            }
        } catch var error as ParleyError {
            if error.request == nil, error.kind != .unacceptableStatus {
                error.message = "\(method.rawValue) \(displayURL(items)): " + error.message
            }
            Terminal.writeError("parley: \(Redaction(secrets(auth)).scrub(error))\n")
            throw ExitCode(HTTPExitStatus.code(for: error))
        }
    }

    /// parley's default header fields, less those `Header:` removed, overridden by the items' fields.
    /// The credentials of this run: the command line's, else the session's.
    private func auth(_ session: HTTPSession?) -> HTTPSession.Auth? {
        if let credentials = options.credentials { return .basic(user: credentials.user, password: credentials.password) }
        if let bearer = options.bearer { return .bearer(bearer) }
        return session?.auth
    }

    private func headers(for items: HTTPRequestItems, session: HTTPSession?, auth: HTTPSession.Auth?) -> Headers {
        var defaults: Headers = ["User-Agent": "parley", "Accept-Encoding": "gzip, deflate"]
        defaults.append("Accept", items.isJSON ? "application/json, */*;q=0.5" : "*/*")
        if items.isJSON {
            defaults.append("Content-Type", "application/json")
        } else if options.form {
            defaults.append("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
        }
        defaults.fields.removeAll { items.removedHeaders.contains($0.name.lowercased()) }
        var headers = defaults.merging(session?.keptHeaders ?? Headers()).merging(items.headers)
        if case .bearer(let token)? = auth { headers.set("Authorization", "Bearer \(token)") }
        return headers
    }

    /// Retries outermost, then Basic authentication, then the `--verbose` log (so it sees every attempt's fields).
    private func middlewares(requestBody: Data?, auth: HTTPSession.Auth?) -> [any ClientMiddleware] {
        var middlewares: [any ClientMiddleware] = []
        if options.retries > 0 {
            middlewares.append(
                RetryMiddleware(RetryPolicy(maxAttempts: options.retries + 1), budget: .unlimited) { event in
                    Terminal.writeError("parley: \(event)\n")
                }
            )
        }
        if case .basic(let user, let password)? = auth {
            middlewares.append(BasicAuthMiddleware(username: user, password: password))
        }
        if options.verbose {
            middlewares.append(
                HTTPExchangeLog(requestBody: requestBody, showsResponse: method != .head, write: Terminal.writeError)
            )
        }
        return middlewares
    }

    /// The credentials given on the command line, kept out of error messages.
    private func secrets(_ auth: HTTPSession.Auth?) -> [String] {
        var secrets: [String] = []
        switch auth {
        case .bearer(let token)?: secrets.append(token)
        case .basic(let user, let password)? where !password.isEmpty:
            secrets += [password, "\(user):\(password)", Data("\(user):\(password)".utf8).base64EncodedString()]
        default: break
        }
        let proxies = options.connection.proxies
        for proxy in [proxies.http, proxies.https, proxies.all].compactMap(\.self) {
            guard let (user, password) = proxy.credentials, !password.isEmpty else { continue }
            secrets += [password, "\(user):\(password)", Data("\(user):\(password)".utf8).base64EncodedString()]
        }
        return secrets
    }

    /// The URL as sent: the one given, with the `name==value` items added to its query.
    private func displayURL(_ items: HTTPRequestItems) -> String {
        guard !items.query.isEmpty else { return options.absoluteURL }
        return options.absoluteURL + (options.absoluteURL.contains("?") ? "&" : "?") + Query(items.query).encoded
    }

    /// Runs `work`, failing with ``ParleyError/Kind/timeout`` once `limit` has passed (the rest of `--timeout` once
    /// the response head has arrived: the client's own timeout covers the wait for the head).
    private func withDeadline<Value: Sendable>(
        _ limit: Duration?,
        _ answer: StreamedResponse,
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        guard let limit else { return try await work() }
        let timeout = options.timeout ?? 0
        return try await withThrowingTaskGroup(of: Value.self) { group in
            group.addTask(operation: work)
            group.addTask {
                try await Task.sleep(for: max(limit, .zero))
                throw ParleyError(.timeout, "The body of the answer did not arrive in full within --timeout \(timeout) s")
                    .attaching(response: answer.response)
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() else {
                throw ParleyError(.cancelled, "The call was cancelled.")
            }
            return value
        }
    }
}
