// swift-format-ignore-file
// Laid out line for line as the swift blocks of the articles it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import Testing

/// The lines with which an article that sends requests starts: the demo server a reader starts with
/// `swift run parley demo --serve --port 8080`, and a client for it. Compiled here; the suites run the samples
/// against a demo server of their own, on a free port, whose URL they pass in as `baseURL` (DocCSupport.swift).
@Suite("DocC: the demo server's address, as the articles declare it")
struct DocCDemoServerAddress {
    @Test("the base URL and client an article declares")
    func baseURLAndClient() async throws {
let baseURL = URL(string: "http://127.0.0.1:8080")!   // swift run parley demo --serve --port 8080
let client = Client(baseURL: baseURL)
        #expect(baseURL.port == 8080 && baseURL.host() == "127.0.0.1")
        try await client.shutdown()
    }
}
