// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import OpenAPIAsyncHTTPClient
import Parley
import Testing

// The OpenAPI transport's block of Sources/Parley/Parley.docc/Transports.md: swift-openapi-async-http-client's
// transport is named like Parley's, so this file does not import ParleyAsyncHTTPClient.
extension DocCTransports {
    @Suite("DocC: Transports (an OpenAPI transport)", .timeLimit(.minutes(1)))
    struct OpenAPIExamples {
        @Test("swift-openapi-async-http-client's transport under a Parley client")
        func openAPITransport() async throws {
            try await withDocServer { baseURL, _ in
                let openAPI = Client(baseURL: baseURL, transport: OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport())
                print(try await openAPI.send(GetUser(id: 1)).name)   // Ada Lovelace
                #expect(try await openAPI.send(GetUser(id: 1)).name == "Ada Lovelace")
                let thrown = await #expect(throws: ParleyError.self) { try await openAPI.send(GetUser(id: 99)) }
                #expect(thrown?.kind == .unacceptableStatus)
            }
        }
    }
}
