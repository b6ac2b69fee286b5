import Foundation
import HTTPTypes
import Parley
import Testing

/// The one parse of a request's URL that every stage reads: ports, brackets, origins, Unix sockets and secrets.
@Suite("Request target: a URL taken apart once")
struct RequestTargetTests {
    @Test("scheme, host without brackets, port with its default, authority, path and query")
    func parts() {
        let v6 = RequestTarget("HTTPS://[::1]:8443/a/b?x=1#f")
        #expect(v6.scheme == "https")
        #expect(v6.host == "::1")
        #expect(v6.port == 8443)
        #expect(v6.authority == "[::1]:8443")
        #expect(v6.pathAndQuery == "/a/b?x=1")
        #expect(v6.path == "/a/b")
        let plain = RequestTarget("http://Example.test")
        #expect(plain.port == 80)
        #expect(plain.explicitPort == nil)
        #expect(plain.authority == "Example.test")
        #expect(plain.pathAndQuery == "/")
        #expect(RequestTarget("https://example.test/").port == 443)
        #expect(RequestTarget("http+unix://%2Ftmp%2Fs.sock/x").port == nil)
    }

    @Test("origins compare scheme, host without regard to case, and port (the default one when none is written)")
    func origins() {
        #expect(RequestTarget("https://API.example.test/x").origin == RequestTarget("https://api.example.test:443/y").origin)
        #expect(RequestTarget("https://example.test").origin != RequestTarget("http://example.test").origin)
        #expect(RequestTarget("https://example.test").origin != RequestTarget("https://example.test:8443").origin)
        #expect(RequestTarget("http://[::1]:80/").origin == RequestTarget("http://[::1]/").origin)
        #expect(RequestTarget("https://a.test@b.test/").origin.host == "b.test")
    }

    @Test("a port that is not 1 to 65535 is a bad port, and implies none")
    func badPorts() {
        for text in ["https://h:x/", "https://h:0/", "https://h:65536/", "https://[::1]x/"] {
            #expect(RequestTarget(text).hasBadPort, "\(text)")
        }
        #expect(!RequestTarget("https://h:/").hasBadPort)
        #expect(RequestTarget("https://h:/").port == 443)
    }

    @Test("a Unix socket's path is its host, percent-decoded")
    func unixSocket() {
        #expect(RequestTarget("http+unix://%2Fvar%2Frun%2Fdocker.sock/v1/info").unixSocketPath == "/var/run/docker.sock")
        #expect(RequestTarget("http://example.test/").unixSocketPath == nil)
    }

    @Test("the redacted text hides the user info and the values of sensitive query items")
    func redaction() {
        let target = RequestTarget("https://user:pa%73s@example.test/x?token=abc&page=2")
        #expect(target.redacted == "https://<redacted>:<redacted>@example.test/x?token=abc&page=2")
        #expect(
            target.redacted(queryItems: ["token"], placeholder: "REDACTED")
                == "https://REDACTED:REDACTED@example.test/x?token=REDACTED&page=2"
        )
        #expect(Set(target.secrets()) == ["user", "pa%73s", "pass"])
        #expect(RequestTarget("https://example.test/x").redacted == "https://example.test/x")
    }

    @Test("a Location resolves against the URL it answered; the request's own parts make its URL")
    func resolvingAndRequests() throws {
        let target = RequestTarget("https://example.test/a/b?q=1")
        #expect(target.resolving("../c?d=2")?.text == "https://example.test/c?d=2")
        #expect(target.resolving("//other.test:8080/x")?.authority == "other.test:8080")
        let request = HTTPRequest(method: .get, scheme: "https", authority: "[::1]:8443", path: "/p?q")
        #expect(RequestTarget(request, baseURL: nil).text == "https://[::1]:8443/p?q")
        let bare = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/p")
        let base = try #require(URL(string: "http://example.test/v2/"))
        #expect(RequestTarget(bare, baseURL: base).text == "http://example.test/v2/p")
    }
}
