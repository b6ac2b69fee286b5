// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyTesting
import Testing

// The Parley blocks of Sources/Parley/Parley.docc/MigratingFromRestingKit.md, compiled and run. RestingKit's
// examples call JSONPlaceholder's /posts, which the demo server does not serve: an InMemoryTransport stands in for
// it. The upload runs against the demo server.
enum DocCMigratingFromRestingKit {
    struct PostCreateModel: Codable, Sendable {
        let userId: Int
        let title: String
        let body: String
    }

    struct PostModel: Codable, Sendable {
        let id: Int
        let userId: Int
        let title: String
        let body: String
    }

    struct CreatePost: Endpoint {
        typealias Response = PostModel
        let post: PostCreateModel
        var method: HTTPRequest.Method { .post }
        var path: Path { "/posts" }
        var body: RequestBody { .json(post) }
    }

    struct GetPost: Endpoint {
        typealias Response = PostModel
        let id: Int
        var path: Path { "/posts/\(id)" }
    }

    struct ListPosts: Endpoint {
        typealias Response = [PostModel]
        let userId: Int
        var path: Path { "/posts" }
        var query: Query { ["userId": String(userId)] }
    }

    struct FindDraft: Endpoint {
        typealias Response = PostModel?
        let postID: Int
        var path: Path { "/posts/\(postID)/draft" }
    }

    struct DeletePost: Endpoint {
        typealias Response = Void
        let id: Int
        var method: HTTPRequest.Method { .delete }
        var path: Path { "/posts/\(id)" }
    }

    struct DeviceIDInjector: ClientMiddleware {
        let deviceID: String

        func intercept(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[HTTPField.Name("Device-ID")!] = deviceID   // a valid field name: never nil
            return try await next(request, body, baseURL)
        }
    }

    struct UploadImage: Endpoint {
        typealias Response = JSONValue
        var method: HTTPRequest.Method { .post }
        var path: Path { "/upload" }
    }

    /// The article's declarations of the service and of the file to upload: compiled, not run (the suite answers
    /// from memory, and uploads to the demo server).
    static func declarationsOfTheArticle() {
let baseURL = URL(string: "https://jsonplaceholder.typicode.com")!
let transport = AsyncHTTPClientTransport.shared
let imageURL = URL(filePath: "photo.jpg")   // the file to send
        _ = (baseURL, transport, imageURL)
    }

    /// JSONPlaceholder's /posts, in memory.
    static func placeholder() -> InMemoryTransport {
        let transport = InMemoryTransport()
        let first = PostModel(id: 1, userId: 1, title: "sunt aut facere", body: "quia et suscipit")
        transport.route(.post, "/posts") { request in
            let new = try request.decodeJSON(PostCreateModel.self)
            return try .json(PostModel(id: 101, userId: new.userId, title: new.title, body: new.body), status: .created)
        }
        transport.route(.get, "/posts") { request in
            let userId = request.queryItems.first { $0.name == "userId" }?.value
            return try .json(userId == "1" ? [first, PostModel(id: 2, userId: 1, title: "qui est esse", body: "est rerum")] : [])
        }
        transport.route(.get, "/posts/:id") { request in
            request.parameters["id"] == "1" ? try .json(first) : StubResponse(status: .notFound, body: Data("{}".utf8))
        }
        transport.route(.get, "/posts/:id/draft") { _ in .status(.ok) }
        transport.route(.delete, "/posts/:id") { _ in .status(.ok) }
        return transport
    }
}

extension DocCMigratingFromRestingKit {
    @Suite("DocC: Migrating from RestingKit", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("the client, endpoints, path variables, query items, optional and empty responses, a middleware, failures")
        func migrated() async throws {
            let transport = DocCMigratingFromRestingKit.placeholder()
            let baseURL = try #require(URL(string: "https://jsonplaceholder.typicode.com"))
            let encoder = JSONEncoder()
            let decoder = JSONDecoder()
            let client = Client(
                baseURL: baseURL,
                transport: transport,
                configuration: Client.Configuration(jsonEncoder: encoder, jsonDecoder: decoder)
            )

            let model = PostCreateModel(userId: 1, title: "Hello world", body: "Some awesome message")
            let (post, response) = try await client.response(for: CreatePost(post: model))
            print("Headers: \(response.headerFields)")
            print("Created post with id: \(post.id)")
            #expect(post.id == 101 && post.title == "Hello world" && response.status.code == 201)

            print(try await client.send(GetPost(id: 1)).title)
            print(try await client.send(ListPosts(userId: 1)).count)
            #expect(try await client.send(GetPost(id: 1)).title == "sunt aut facere")
            #expect(try await client.send(ListPosts(userId: 1)).count == 2)
            #expect(transport.requests.last?.queryItems.first?.value == "1")

            if let draft = try await client.send(FindDraft(postID: 1)) {
                print("Draft: \(draft.title)")
            } else {
                print("No draft")
            }
            try await client.send(DeletePost(id: 1))
            #expect(try await client.send(FindDraft(postID: 1)) == nil)

let deviceID = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
            let injecting = Client(baseURL: baseURL, transport: transport, middlewares: [DeviceIDInjector(deviceID: deviceID)])
            _ = try await injecting.send(GetPost(id: 1))
            #expect(transport.requests.last?.header(HTTPField.Name("Device-ID")!) == deviceID)

            do {
                _ = try await client.send(GetPost(id: 9999))
            } catch where error.kind == .unacceptableStatus {
                print(error.status?.code ?? 0, error.bodyExcerpt ?? "")   // 404 {}
            } catch {
                print(error.kind, error)
            }
            let missing = await #expect(throws: ParleyError.self) { try await client.send(GetPost(id: 9999)) }
            #expect(missing?.kind == .unacceptableStatus)
            #expect(missing?.status?.code == 404 && missing?.bodyExcerpt == "{}")
        }

        @Test("an upload from a file with progress, as a sequence and through onProgress")
        func upload() async throws {
            try await withDocServer { baseURL, _ in
                try await withTemporaryFolder { folder in
                    let transport = AsyncHTTPClientTransport.shared
                    let imageURL = folder.appending(path: "photo.jpg")
                    #expect(FileManager.default.createFile(atPath: imageURL.path, contents: Data(count: 3 << 20)))
                    let encoder = JSONEncoder()
                    let decoder = JSONDecoder()
                    let client = Client(
                        baseURL: baseURL,
                        transport: transport,
                        configuration: Client.Configuration(jsonEncoder: encoder, jsonDecoder: decoder)
                    )
                    let upload = client.upload(UploadImage(), fromFile: imageURL, contentType: "image/jpeg")
                    for await progress in upload.progress {
                        print(progress.fractionCompleted ?? 0)
                    }
                    _ = try await upload.value
                    print("Done!")

                    let receipt = try await client.upload(UploadImage(), fromFile: imageURL, contentType: "image/jpeg") { progress in
                        print(progress.fractionCompleted ?? 0)
                    }.value
                    print(receipt["bytes"]?.intValue ?? 0)
                    #expect(receipt["bytes"]?.intValue == 3_145_728)
                }
            }
        }
    }
}
