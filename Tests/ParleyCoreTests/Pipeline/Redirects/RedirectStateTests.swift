import Foundation
import HTTPTypes
import Parley
import Testing

@testable import ParleyTestSupport

/// The redirect rules as a value: no server, no transport, one decision per redirect response.
@Suite("Redirect decisions, without a transport")
struct RedirectStateTests {
    // swift-format-ignore: NeverForceUnwrap
    private let base = URL(string: "https://api.example.test")!  // SAFE: a literal URL
    private let post = HTTPRequest(method: .post, scheme: "https", authority: "api.example.test", path: "/v1/items?api_key=k&x=1")

    private func redirect(_ code: Int, to location: String) -> HTTPResponse {
        HTTPResponse(status: .init(code: code), headerFields: [.location: location])
    }

    private func followed(_ decision: RedirectState.Decision) -> (request: HTTPRequest, keepsBody: Bool)? {
        if case .follow(let request, let keepsBody) = decision { return (request, keepsBody) }
        return nil
    }

    private func refusal(_ decision: RedirectState.Decision) -> ParleyError? {
        if case .refuse(let error) = decision { return error }
        return nil
    }

    @Test("303 turns a POST into a GET without its body and body fields; 307 keeps method and body")
    func methodRewriting() throws {
        var request = post
        request.headerFields = [.contentType: "application/json", .contentLength: "2", .accept: "*/*"]
        var state = RedirectState(first: request, policy: RedirectPolicy(), baseURL: base)
        let seeOther = try #require(followed(state.decide(redirect(303, to: "/done"), to: request, body: true)))
        #expect(seeOther.request.method == .get)
        #expect(!seeOther.keepsBody)
        #expect(seeOther.request.headerFields[.contentType] == nil && seeOther.request.headerFields[.contentLength] == nil)
        #expect(seeOther.request.headerFields[.accept] == "*/*")
        #expect(seeOther.request.path == "/done")
        let temporary = try #require(followed(state.decide(redirect(307, to: "/again"), to: request, body: true)))
        #expect(temporary.request.method == .post)
        #expect(temporary.keepsBody)
        #expect(state.hops == 2)
    }

    @Test("307 with a body that can be read only once is refused, naming the fix")
    func streamedBody() {
        var state = RedirectState(first: post, policy: RedirectPolicy(), baseURL: base)
        let error = refusal(state.decide(redirect(307, to: "/again"), to: post, body: false))
        #expect(error?.kind == .redirect)
        #expect(error?.message.contains("replayable body") == true, "\(String(describing: error))")
    }

    @Test("to another origin: credential fields and query items stay behind; the policy's and the middlewares'")
    func crossOrigin() throws {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/v1/items?api_key=k&x=1")
        request.headerFields = [
            .authorization: "Bearer t", .cookie: "a=b", HTTPField.Name("X-Custom-Token")!: "s", .accept: "*/*",
        ]  // SAFE: a valid literal name
        var added = OriginBoundCredentials()
        added.headerFields = [HTTPField.Name("X-Custom-Token")!]  // SAFE: a valid literal name
        added.queryItems = ["api_key"]
        var state = RedirectState(first: request, policy: RedirectPolicy(), baseURL: base, added: added)
        let other = try #require(
            followed(state.decide(redirect(302, to: "https://cdn.example.test/items?api_key=k&x=1"), to: request, body: nil))
        )
        #expect(other.request.authority == "cdn.example.test")
        #expect(other.request.headerFields[.authorization] == nil)
        #expect(other.request.headerFields[.cookie] == nil)
        #expect(other.request.headerFields[HTTPField.Name("X-Custom-Token")!] == nil)  // SAFE: a valid literal name
        #expect(other.request.headerFields[.accept] == "*/*")
        #expect(other.request.path == "/items?x=1")
        // Back on the first origin, another path: credentials go along.
        var same = RedirectState(first: request, policy: RedirectPolicy(), baseURL: base, added: added)
        let kept = try #require(followed(same.decide(redirect(302, to: "/v2/items?api_key=k"), to: request, body: nil)))
        #expect(kept.request.headerFields[.authorization] == "Bearer t")
        #expect(kept.request.path == "/v2/items?api_key=k")
    }

    @Test("https to http is refused unless the policy allows it; a non-http Location is refused")
    func schemes() throws {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/a")
        var state = RedirectState(first: request, policy: RedirectPolicy(), baseURL: base)
        #expect(
            refusal(state.decide(redirect(301, to: "http://api.example.test/a"), to: request, body: nil))?.message.contains(
                "allowsDowngrade"
            ) == true
        )
        #expect(
            refusal(state.decide(redirect(301, to: "ftp://api.example.test/a"), to: request, body: nil))?.message.contains(
                "not an http or https URL"
            ) == true
        )
        var policy = RedirectPolicy()
        policy.allowsDowngrade = true
        var lenient = RedirectState(first: request, policy: policy, baseURL: base)
        let plain = try #require(followed(lenient.decide(redirect(301, to: "http://api.example.test/a"), to: request, body: nil)))
        #expect(plain.request.scheme == "http")
    }

    @Test("a loop is refused when it comes back, and one hop past maxRedirects is refused")
    func loopsAndLimits() throws {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/a")
        var state = RedirectState(first: request, policy: RedirectPolicy(), baseURL: base)
        let toB = try #require(followed(state.decide(redirect(302, to: "/b"), to: request, body: nil)))
        #expect(
            refusal(state.decide(redirect(302, to: "/a"), to: toB.request, body: nil))?.message.contains("redirect loop") == true
        )
        var policy = RedirectPolicy()
        policy.maxRedirects = 1
        var short = RedirectState(first: request, policy: policy, baseURL: base)
        let first = try #require(followed(short.decide(redirect(302, to: "/b"), to: request, body: nil)))
        let error = refusal(short.decide(redirect(302, to: "/c"), to: first.request, body: nil))
        #expect(error?.message.contains("one hop more than the 1") == true, "\(String(describing: error))")
    }

    @Test("a 3xx without Location, or a status Parley does not follow, is the answer")
    func answers() {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/a")
        var state = RedirectState(first: request, policy: RedirectPolicy(), baseURL: base)
        let bare = HTTPResponse(status: .init(code: 302))
        #expect(!RedirectState.isRedirect(bare))
        if case .answer = state.decide(bare, to: request, body: nil) {
        } else {
            Issue.record("a 302 without Location was not the answer")
        }
        if case .answer = state.decide(redirect(304, to: "/b"), to: request, body: nil) {
        } else {
            Issue.record("a 304 was followed")
        }
        #expect(state.hops == 0)
    }
}
