import ArgumentParser
import Foundation
import Parley

/// An endpoint made at run time from a URL given on the command line: the client's base URL is the URL's origin,
/// and the endpoint carries its path and query unchanged.
struct URLEndpoint: Endpoint {
    typealias Response = Data

    let method: HTTPRequest.Method
    let path: Path
    var query: Query
    var headers: Headers
    /// The request body; none unless set after `init`.
    var body: RequestBody = .none
    /// The status codes accepted; `nil` (the default) for the client's (2xx).
    var acceptableStatusCodes: StatusCodes?
    /// A short name for error messages ("upload", "download").
    let name: String

    /// The client's base URL: the URL's scheme, host and port, without path or query.
    let origin: URL

    /// Splits `url` into an origin and a path with its query.
    ///
    /// - Throws: `ValidationError` when `url` is not an absolute http or https URL with a host.
    init(url text: String, method: HTTPRequest.Method = .get, headers: Headers = [:], name: String) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(percentEncoded: true), !host.isEmpty
        else {
            throw ValidationError("\(text) is not an absolute http:// or https:// URL.")
        }
        let authority = RequestTarget.authority(host: host, port: url.port)
        guard let origin = URL(string: "\(scheme)://\(authority)") else {
            throw ValidationError("\(text) has a host that does not make a URL: \(authority).")
        }
        let path = url.path(percentEncoded: true)
        self.origin = origin
        self.method = method
        self.path = Path(percentEncoded: path.isEmpty ? "/" : path)
        self.query = url.query(percentEncoded: true).map { Query(percentEncoded: $0) } ?? []
        self.headers = headers
        self.name = name
    }

    /// Parses `--header 'Name: value'` options (httpie's `Name:value` works too): the one reader of `--header`.
    /// A value is never repeated in an error message (it may be a credential); a name must be a token, and a value
    /// may not hold control characters.
    static func parseHeaders(_ options: [String]) throws -> Headers {
        var headers = Headers()
        for option in options {
            guard let colon = option.firstIndex(of: ":") else {
                throw ValidationError("--header takes NAME:VALUE, such as 'Authorization: Bearer …'; one has no colon.")
            }
            let name = option[..<colon].trimmingCharacters(in: .whitespaces)
            let value = option[option.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            var field = Headers()
            field.append(name, value)
            guard !name.isEmpty, (try? field.httpFields()) != nil else {
                throw ValidationError(
                    "--header \(PrintableText.escaping(name)): the name must be a token (letters, digits and "
                        + "!#$%&'*+-.^_`|~) and the value may not hold control characters."
                )
            }
            headers.append(name, value)
        }
        return headers
    }
}
