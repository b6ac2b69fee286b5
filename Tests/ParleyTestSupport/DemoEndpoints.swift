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
