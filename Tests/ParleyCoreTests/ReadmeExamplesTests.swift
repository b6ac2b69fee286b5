// swift-format-ignore-file
// Laid out line for line as the swift blocks of the articles and README it compiles (scripts/check-docs, scripts/check-readme).
import Foundation
import Logging
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import ParleyTesting
import Testing

@testable import ParleyTestSupport

// The README's Swift blocks, compiled and run against the demo server.
// scripts/check-readme fails when a README block is not found here line for line.
enum Readme {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct CreateUser: Endpoint {
        typealias Response = User
        let name: String
        let email: String
        var method: HTTPRequest.Method { .post }
        var path: Path { "/users" }
        var headers: Headers { ["X-Request-Source": "signup"] }
        var body: RequestBody { .json(["name": name, "email": email]) }
    }

    struct Subtract: JSONRPCMethod {
        typealias Result = Int
        static let name = "subtract"
        let params: [Int]
    }

    struct Sum: JSONRPCMethod {
        typealias Result = Int
        static let name = "sum"
        let params: [Int]
    }

    struct UploadFile: Endpoint {
        typealias Response = JSONValue
        var method: HTTPRequest.Method { .post }
        var path: Path { "/upload" }
    }

    struct DownloadFile: Endpoint {
        typealias Response = Data
        var path: Path { "/download" }
        var query: Query { ["n": "8388608"] }
    }

    struct WhoAmI: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/me" }
    }

    struct IssueToken: Endpoint {
        typealias Response = JSONValue
        var method: HTTPRequest.Method { .post }
        var path: Path { "/auth/token" }
    }

    struct Ticks: Endpoint {
        typealias Response = Data
        var path: Path { "/sse" }
        var query: Query { ["count": "3"] }
    }
}

extension Readme {
    @Suite("README examples")
    struct Examples {
        @Test("the quick start runs")
        func quickStart() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))

            let client = Client(baseURL: baseURL, headers: ["User-Agent": "my-app/1.0"])
            let user = try await client.send(GetUser(id: 1))
            let (created, response) = try await client.response(for: CreateUser(name: "Grace", email: "grace@example.com"))
            print(user.name, created.id, response.status.code)

            #expect(user.name == "Ada Lovelace")
            #expect(created.name == "Grace")
            #expect(response.status.code == 201)
        }

        @Test("the failure example prints a readable error")
        func failure() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let client = Client(baseURL: baseURL, headers: ["User-Agent": "my-app/1.0"])

            do {
                _ = try await client.send(GetUser(id: 99))
            } catch {
                // Parley unacceptableStatus error for GET http://127.0.0.1:PORT/users/99: The server answered 404 Not Found,
                // but GetUser accepts only 200…299. Response: 404 Not Found, Content-Type application/json; charset=utf-8.
                // Body: {"error":"user 99 not found"}
                print(error.kind, error)
            }

            let error = await expectParleyError(.unacceptableStatus) { try await client.send(GetUser(id: 99)) }
            let expected = "Parley unacceptableStatus error for GET \(server.baseURL)/users/99: The server answered 404 Not Found, "
                + "but GetUser accepts only 200…299. Response: 404 Not Found, Content-Type application/json; charset=utf-8. "
                + #"Body: {"error":"user 99 not found"}"#
            #expect(error?.description == expected)
        }

        @Test("the JSON-RPC example runs")
        func jsonRPC() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let client = Client(baseURL: try #require(URL(string: server.baseURL)))

            let rpc = JSONRPCClient(http: client, path: "/rpc")
            let difference = try await rpc.call(Subtract(params: [42, 23]))
            let (sum, missing) = try await rpc.batch(Sum(params: [1, 2, 4]), JSONRPCDynamicMethod("foobar"))
            print(difference, try sum.get(), missing)   // 19 7 failure(… -32601 "Method not found" …)
            try await rpc.notify(JSONRPCDynamicMethod("notify_hello", params: .array([.int(7)])))

            #expect(difference == 19)
            #expect(try sum.get() == 7)
            guard case .failure(let error) = missing else {
                Issue.record("foobar succeeded")
                return
            }
            #expect(error.jsonRPCError?.code == -32601)
        }

        @Test("the streaming example runs")
        func streaming() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let client = Client(baseURL: try #require(URL(string: server.baseURL)))
            let folder = FileManager.default.temporaryDirectory.appending(path: "parley-readme-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appending(path: "upload.bin")
            let destination = folder.appending(path: "download.bin")
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data(count: 8 << 20)))

            let upload = client.upload(UploadFile(), fromFile: file, contentType: "application/octet-stream")
            for await progress in upload.progress { print(progress) }      // 1048576 of 8388608 bytes (12%) …
            let stored = try await upload.value

            let saved = try await client.download(DownloadFile(), to: destination, resume: true).value
            print(saved.bytes, saved.resumedFrom)

            for try await event in client.events(Ticks()) { print(event.type, event.lastEventID, event.data) }

            #expect(stored["bytes"] == .int(8_388_608))
            #expect(saved.bytes == 8_388_608)
        }

        @Test("the resilience example runs")
        func resilience() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let tokens = Client(baseURL: baseURL)
            let issued = LockedBox(0)
            @Sendable func fetchToken(replacing stale: AccessToken?) async throws -> AccessToken {
                issued.mutate { $0 += 1 }
                let answer = try await tokens.send(IssueToken())
                return AccessToken(answer["access_token"]?.stringValue ?? "", expiresIn: .seconds(3600))
            }

            let client = Client(
                baseURL: baseURL,
                middlewares: [
                    .retry(RetryPolicy(maxAttempts: 4, deadline: .seconds(20))),
                    .bearerAuth { stale in try await fetchToken(replacing: stale) },
                ],
                configuration: Client.Configuration(timeout: .seconds(30), maxConcurrentRequests: 16)
            )
            let me = try await client.send(WhoAmI())

            #expect(me["subject"] == "demo")
            #expect(issued.value == 1)
        }

        @Test("the observability example runs")
        func observability() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))

            let client = Client(
                baseURL: baseURL,
                middlewares: [
                    .logging(Logger(label: "api")),   // one line per exchange: method, URL, status, duration, attempt, bytes
                    .metrics(),                       // http.client.requests, .errors, .request.duration, … per endpoint name
                    .tracing(),                       // a CLIENT span per request sent, W3C traceparent injected
                    .retry(),
                ]
            )
            let user = try await client.send(GetUser(id: 1))

            #expect(user.id == 1)
        }

        @Test("the testing example records, replays offline, and asserts")
        func recordReplay() async throws {
            let server = try await DemoServer.start()
            let baseURL = try #require(URL(string: server.baseURL))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-readme-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let fixtureURL = directory.appendingPathComponent("users.json")
            let apiKey = "sk-readme-7f3a"

            // Once, against the real service: each exchange goes to the fixture file, secrets redacted.
            let recording = RecordingTransport(wrapping: AsyncHTTPClientTransport.shared, fixture: fixtureURL)
            let live = Client(baseURL: baseURL, transport: recording, middlewares: [.apiKey(apiKey)])
            let recorded = try await live.send(GetUser(id: 1))
            await server.stop()

            let replay = try ReplayTransport(fixture: fixtureURL)
            let recorder = RequestRecorder(wrapping: replay)
            let offline = Client(baseURL: baseURL, transport: recorder, middlewares: [.apiKey(apiKey)])
            let replayed = try await offline.send(GetUser(id: 1))
            try recorder.expectRequests([.get("/users/1").header("X-API-Key")])   // what the middlewares sent, in order
            try replay.verifyAllUsed()

            #expect(replayed.id == recorded.id && replayed.name == recorded.name && replayed.email == recorded.email)
            let file = try String(contentsOf: fixtureURL, encoding: .utf8)
            #expect(!file.contains(apiKey))
            #expect(file.contains("<redacted>"))
            await #expect(throws: ParleyError.self) { try await offline.send(GetUser(id: 2)) }
        }
    }
}
