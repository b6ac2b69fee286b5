import AsyncHTTPClient
import Foundation
import NIOCore
import Parley
import ParleyAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ~200-byte object the demo server's `/bench/object` returns.
struct Item: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
    let active: Bool
    let score: Double
    let tags: [String]
    let createdAt: String
    let note: String
}

/// A ~1 KiB request body.
struct Order: Codable, Sendable {
    struct Line: Codable, Sendable {
        let sku: String
        let quantity: Int
        let price: Double
        let description: String
    }
    let customer: String
    let lines: [Line]

    static let sample = Order(
        customer: "bench@example.com",
        lines: (0..<8).map {
            Line(
                sku: "SKU-\($0)-ABCDEFGH",
                quantity: $0 + 1,
                price: 9.99,
                description: "a line item of an order, about a hundred bytes long"
            )
        }
    )
}

struct GetItem: Endpoint {
    typealias Response = Item
    var path: Path { "/bench/object" }
}

struct PostOrder: Endpoint {
    typealias Response = Item
    var method: HTTPRequest.Method { .post }
    var path: Path { "/bench/object" }
    var body: RequestBody { .json(Order.sample) }
}

/// A middleware that only passes the call on.
struct NoOp: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await next(request, body, baseURL)
    }
}

/// The raw AsyncHTTPClient code a user would write instead of Parley.
enum RawAHC {
    static func get(_ client: HTTPClient, url: String) async throws -> Item {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        guard response.status == .ok else { throw BenchError.status(Int(response.status.code)) }
        let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
        return try JSONDecoder().decode(Item.self, from: Data(body.readableBytesView))
    }

    static func post(_ client: HTTPClient, url: String) async throws -> Item {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(Order.sample)))
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw BenchError.status(Int(response.status.code)) }
        let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
        return try JSONDecoder().decode(Item.self, from: Data(body.readableBytesView))
    }
}

/// The raw URLSession code a user would write instead of Parley.
enum RawURLSession {
    static func get(_ session: URLSession, url: URL) async throws -> Item {
        let (data, response) = try await session.data(for: URLRequest(url: url))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError.status(-1) }
        return try JSONDecoder().decode(Item.self, from: data)
    }
}

enum BenchError: Error {
    case status(Int)
    case usage(String)
    case mismatch(String)
    case closed
}
