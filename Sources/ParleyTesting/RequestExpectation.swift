public import HTTPTypes
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What one request should look like, for ``RequestRecorder/expectRequests(_:)`` and
/// ``InMemoryTransport/expectRequests(_:)``.
///
/// Start from the method and the target (path, and query when it matters), then add what else must hold:
///
/// ```swift
/// try recorder.expectRequests([
///     .get("/users/1").header("Authorization", "Bearer t1"),
///     .post("/users", json: NewUser(name: "Ada", email: "ada@example.com")).header(.contentType, "application/json").answered(201),
///     .get("/search?q=swift&page=2").withoutHeader("Cookie"),
///     .get("/feed").anyQuery(),
/// ])
/// ```
///
/// - The path is compared segment by segment once percent-decoded, so `/files/a b` and `/files/a%20b` are equal.
/// - The query items written in the target must be exactly the ones sent, in any order; a target without `?`
///   expects no query, unless ``anyQuery()``.
/// - Header fields are checked only when named (``header(_:_:)-(String,_)``, ``header(_:)``, ``withoutHeader(_:)``);
///   transports and middlewares add many others.
/// - A body is checked only when given: JSON compared as JSON values (member order and spacing do not matter),
///   text and bytes exactly.
public struct RequestExpectation: Sendable, CustomStringConvertible {
    /// A check of one header field.
    public enum HeaderCheck: Sendable, Hashable {
        /// One of the field's values is this.
        case equals(String)
        /// The field is present, with any value.
        case present
        /// The field is absent.
        case absent
    }

    /// A check of the body.
    public enum BodyCheck: Sendable, Hashable {
        /// The body is JSON equal to this value.
        case json(JSONValue)
        /// The body is exactly this UTF-8 text.
        case text(String)
        /// The body is exactly these bytes.
        case bytes(Data)
        /// The expected JSON could not be encoded; the check always fails with this reason.
        case unencodable(String)
    }

    /// The method.
    public var method: HTTPRequest.Method
    /// The path, without the query.
    public var path: String
    /// The query items expected, in any order; `nil` accepts any query.
    public var query: [QueryItem]?
    /// Header checks, by field name.
    public var headers: [(name: String, check: HeaderCheck)] = []
    /// The body check; `nil` accepts any body.
    public var body: BodyCheck?
    /// The status code the transport answered with; `nil` accepts any (and a failed request).
    public var status: Int?

    /// A request of `method` to `target` (a path with an optional, percent-encoded `?query`).
    public init(_ method: HTTPRequest.Method, _ target: String) {
        self.method = method
        (path, query) = ReplayRequest.split(target)
    }

    /// A request of `method` to `target`.
    public static func request(_ method: HTTPRequest.Method, _ target: String) -> RequestExpectation {
        RequestExpectation(method, target)
    }

    /// A `GET` of `target`.
    public static func get(_ target: String) -> RequestExpectation { RequestExpectation(.get, target) }
    /// A `HEAD` of `target`.
    public static func head(_ target: String) -> RequestExpectation { RequestExpectation(.head, target) }
    /// A `DELETE` of `target`.
    public static func delete(_ target: String) -> RequestExpectation { RequestExpectation(.delete, target) }
    /// A `POST` to `target`, its body not checked.
    public static func post(_ target: String) -> RequestExpectation { RequestExpectation(.post, target) }
    /// A `PUT` to `target`, its body not checked.
    public static func put(_ target: String) -> RequestExpectation { RequestExpectation(.put, target) }
    /// A `PATCH` to `target`, its body not checked.
    public static func patch(_ target: String) -> RequestExpectation { RequestExpectation(.patch, target) }

    /// A `POST` to `target` whose body is `json` as JSON.
    public static func post(_ target: String, json: some Encodable) -> RequestExpectation {
        RequestExpectation(.post, target).json(json)
    }

    /// A `PUT` to `target` whose body is `json` as JSON.
    public static func put(_ target: String, json: some Encodable) -> RequestExpectation {
        RequestExpectation(.put, target).json(json)
    }

    /// A `PATCH` to `target` whose body is `json` as JSON.
    public static func patch(_ target: String, json: some Encodable) -> RequestExpectation {
        RequestExpectation(.patch, target).json(json)
    }

    /// Also expects the header field `name` to have `value` (one of its values, when repeated).
    public func header(_ name: String, _ value: String) -> RequestExpectation { adding(name, .equals(value)) }
    /// Also expects the header field `name` to have `value` (one of its values, when repeated).
    public func header(_ name: HTTPField.Name, _ value: String) -> RequestExpectation {
        adding(name.rawName, .equals(value))
    }
    /// Also expects the header field `name` to be present, with any value.
    public func header(_ name: String) -> RequestExpectation { adding(name, .present) }
    /// Also expects the header field `name` to be absent.
    public func withoutHeader(_ name: String) -> RequestExpectation { adding(name, .absent) }

    /// Accepts any query items.
    public func anyQuery() -> RequestExpectation { with { $0.query = nil } }
    /// Also expects the body to be `value` as JSON (compared as JSON values).
    public func json(_ value: some Encodable) -> RequestExpectation {
        let check: BodyCheck
        do {
            check = .json(try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(value)))
        } catch {
            check = .unencodable("the expected JSON body could not be encoded: \(error)")
        }
        return with { $0.body = check }
    }
    /// Also expects the body to be exactly `text` in UTF-8.
    public func text(_ text: String) -> RequestExpectation { with { $0.body = .text(text) } }
    /// Also expects the body to be exactly `bytes` (empty for no body).
    public func body(_ bytes: Data) -> RequestExpectation { with { $0.body = .bytes(bytes) } }
    /// Also expects the transport to have answered with `status`.
    public func answered(_ status: Int) -> RequestExpectation { with { $0.status = status } }

    private func adding(_ name: String, _ check: HeaderCheck) -> RequestExpectation {
        with { $0.headers.append((name, check)) }
    }

    private func with(_ change: (inout RequestExpectation) -> Void) -> RequestExpectation {
        var copy = self
        change(&copy)
        return copy
    }
}
