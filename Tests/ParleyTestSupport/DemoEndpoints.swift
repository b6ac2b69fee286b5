import Foundation
import Parley

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
    let email: String
}

struct NewUser: Codable, Sendable {
    let name: String
    let email: String
}

struct GetUser: Endpoint {
    typealias Response = User
    let id: Int
    var path: Path { "/users/\(id)" }
}

struct ListUsers: Endpoint {
    typealias Response = [User]
    var path: Path { "/users" }
}

struct CreateUser: Endpoint {
    typealias Response = User
    let user: NewUser
    var method: HTTPRequest.Method { .post }
    var path: Path { "/users" }
    var body: RequestBody { .json(user) }
}

struct DeleteUser: Endpoint {
    typealias Response = Void
    let id: Int
    var method: HTTPRequest.Method { .delete }
    var path: Path { "/users/\(id)" }
}

/// A GET of any demo path, decoding into `Response` with the default decoder for that type.
struct Get<Value: Sendable & Decodable>: Endpoint {
    typealias Response = Value
    var path: Path
    var query: Query = []
    var acceptableStatusCodes: StatusCodes? = nil
    var acceptableContentTypes: [String]? = nil
    var validators: [ResponseValidator] = []
    var timeout: Duration? = nil
}

struct GetText: Endpoint {
    typealias Response = String
    var path: Path
}

struct GetData: Endpoint {
    typealias Response = Data
    var path: Path
    var query: Query = []
}

struct GetVoid: Endpoint {
    typealias Response = Void
    var path: Path
    var query: Query = []
}

struct GetOptional: Endpoint {
    typealias Response = User?
    var path: Path
}

/// The demo server's `/flaky`: fails `failures` times per key, then answers `{"key","attempts"}`.
struct Flaky: Endpoint {
    struct Answer: Decodable, Sendable {
        let key: String
        let attempts: Int
    }
    typealias Response = Answer
    var method: HTTPRequest.Method = .get
    var key = UUID().uuidString
    var failures = 2
    var status = 503
    var retryAfter: String?
    var idempotent: Bool?
    var body: RequestBody = .none
    var path: Path { "/flaky" }
    var query: Query {
        var query: Query = ["key": key, "failures": "\(failures)", "status": "\(status)"]
        if let retryAfter { query.append("retry-after", retryAfter) }
        return query
    }
    var isIdempotent: Bool { idempotent ?? CallContext.isIdempotent(method) }
}

/// How many requests the demo server's `/flaky` saw for a key.
struct FlakyCount: Endpoint {
    typealias Response = Flaky.Answer
    let key: String
    var path: Path { "/flaky/count" }
    var query: Query { ["key": key] }
}

extension Flaky.Answer {
    enum CodingKeys: String, CodingKey { case key, attempts }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        // `/flaky/count` reports the number as text.
        if let number = try? container.decode(Int.self, forKey: .attempts) {
            attempts = number
        } else {
            attempts = Int(try container.decode(String.self, forKey: .attempts)) ?? -1
        }
    }
}
