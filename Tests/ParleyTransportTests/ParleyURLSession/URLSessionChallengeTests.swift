import Foundation
import Testing

@testable import ParleyURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the URLSession transport answers to each kind of authentication challenge (issue 25). FoundationNetworking
/// never raises a server-trust challenge (libcurl verifies the chain), so no server here can make one: the decision is
/// checked as a function; the 401 path is run end to end by the auth suites on both transports.
@Suite("URLSession challenges: server trust gets default handling, the rest come back as responses")
struct URLSessionChallengeTests {
    @Test("server trust: the system evaluates the chain (rejecting it would fail every HTTPS request on Apple platforms)")
    func serverTrust() {
        // Apple's constant, spelled out: FoundationNetworking marks it unavailable.
        #expect(SessionRouter.disposition(forChallengeMethod: "NSURLAuthenticationMethodServerTrust") == .performDefaultHandling)
    }

    @Test(
        "HTTP authentication and client certificates are refused, so the 401 or 407 reaches Parley's middlewares",
        arguments: [
            NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest, NSURLAuthenticationMethodDefault,
            "NSURLAuthenticationMethodClientCertificate", NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
        ]
    )
    func others(method: String) {
        #expect(SessionRouter.disposition(forChallengeMethod: method) == .rejectProtectionSpace)
    }
}
