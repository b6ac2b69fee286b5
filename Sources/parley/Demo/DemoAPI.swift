import Parley
import ParleyJSONRPC

/// A user of the demo server.
struct User: Codable, Sendable, CustomStringConvertible {
    let id: Int
    let name: String
    let email: String
    var description: String { "#\(id) \(name) <\(email)>" }
}

/// The fields to create or update a user.
struct NewUser: Codable, Sendable {
    let name: String
    let email: String
}

struct ListUsers: Endpoint {
    typealias Response = [User]
    var path: Path { "/users" }
}

struct GetUser: Endpoint {
    typealias Response = User
    let id: Int
    var path: Path { "/users/\(id)" }
}

struct CreateUser: Endpoint {
    typealias Response = User
    let user: NewUser
    var method: HTTPRequest.Method { .post }
    var path: Path { "/users" }
    var body: RequestBody { .json(user) }
}

struct UpdateUser: Endpoint {
    typealias Response = User
    let id: Int
    let user: NewUser
    var method: HTTPRequest.Method { .put }
    var path: Path { "/users/\(id)" }
    var body: RequestBody { .json(user) }
}

struct DeleteUser: Endpoint {
    typealias Response = Void
    let id: Int
    var method: HTTPRequest.Method { .delete }
    var path: Path { "/users/\(id)" }
}

struct GetProfile: Endpoint {
    typealias Response = JSONValue
    let id: Int
    var path: Path { "/users/\(id)/profile" }
    var validators: [ResponseValidator] { [.requiredJSONKeys(["id", "name", "email", "profile.avatar"])] }
}

/// The demo server's JSON-RPC methods used by the walkthrough.
struct Subtract: JSONRPCMethod {
    typealias Result = Int
    static let name = "subtract"
    let params: [Int]
}

struct SubtractNamed: JSONRPCMethod {
    struct Params: Encodable, Sendable {
        let minuend: Int
        let subtrahend: Int
    }
    typealias Result = Int
    static let name = "subtract"
    let params: Params
}

struct Sum: JSONRPCMethod {
    typealias Result = Int
    static let name = "sum"
    let params: [Int]
}

struct GetData: JSONRPCMethod {
    typealias Result = [JSONValue]
    static let name = "get_data"
}

/// The demo server's answer to an upload: what it read and its SHA-256.
struct UploadReport: Decodable, Sendable {
    let bytes: Int
    let sha256: String
    let contentLength: Int?
}

/// `POST /upload`: the server reads the body and reports its size and SHA-256.
struct UploadSample: Endpoint {
    typealias Response = UploadReport
    var method: HTTPRequest.Method { .post }
    var path: Path { "/upload" }
}

/// `GET /sse`: `count` `tick` events, with the reconnection time `retry` (milliseconds), the connection dropped
/// after `dropAfter` events.
struct Ticks: Endpoint {
    typealias Response = Void
    let count: Int
    let retry: Int
    let dropAfter: Int
    var path: Path { "/sse" }
    var query: Query { ["count": "\(count)", "retry": "\(retry)", "dropAfter": "\(dropAfter)"] }
}
