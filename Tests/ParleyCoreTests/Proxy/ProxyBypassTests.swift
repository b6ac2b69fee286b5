import Foundation
import Testing

@testable import Parley

/// `no_proxy` entries that do not parse (issue 24, item 8): they must match nothing, never every port of their host.
@Suite("no_proxy: an entry that does not parse matches no host")
struct ProxyBypassTests {
    private let proxy = Proxy(.http, host: "proxy.test", port: 3128)

    @Test(
        "a bad port, a [ without ], or text after ] make the entry match nothing, on any port",
        arguments: [
            "127.0.0.1:notaport", "[127.0.0.1]:x", "[::1", "127.0.0.1:", "[::1]:", "[::1]x", "127.0.0.1:+80",
            "127.0.0.1:-1", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1: 80", "127.0.0.1:80x", ":80", "[]:80",
            "10.0.0.0/x", "127.0.0.0/+8", "127.0.0.1]",
        ]
    )
    func malformed(entry: String) {
        let settings = ProxySettings(proxy, noProxy: [entry])
        for host in ["127.0.0.1", "::1", "[::1]", "localhost"] {
            for port in [80, 443, 8080, 65_535] {
                #expect(!settings.bypasses(host: host, port: port), "\(entry) matched \(host):\(port)")
            }
        }
    }

    @Test(
        "well-formed entries keep working: a port, a bracketed address, a range",
        arguments: [
            ("127.0.0.1:8080", "127.0.0.1", 8080, true),
            ("127.0.0.1:8080", "127.0.0.1", 80, false),
            ("[127.0.0.1]:8080", "127.0.0.1", 8080, true),
            ("[127.0.0.1]:8080", "127.0.0.1", 8081, false),
            ("[::1]", "::1", 9, true),
            ("[::1]:65535", "[::1]", 65_535, true),
            ("localhost:1", "localhost", 1, true),
            ("127.0.0.0/8", "127.9.9.9", 80, true),
        ]
    )
    func wellFormed(entry: String, host: String, port: Int, bypasses: Bool) {
        #expect(ProxySettings(proxy, noProxy: [entry]).bypasses(host: host, port: port) == bypasses)
    }

    @Test("from the environment: a bad entry sends 127.0.0.1 through the proxy, the good ones beside it still apply")
    func environment() throws {
        let settings = ProxySettings.environment([
            "http_proxy": "http://proxy.test:3128", "no_proxy": "127.0.0.1:notaport, [127.0.0.1]:x,localhost:8080",
        ])
        #expect(settings.proxy(for: try #require(URL(string: "http://127.0.0.1:8080/"))) == settings.http)
        #expect(settings.proxy(for: try #require(URL(string: "http://127.0.0.1/"))) == settings.http)
        #expect(settings.proxy(for: try #require(URL(string: "http://localhost:8080/"))) == nil)
        #expect(settings.proxy(for: try #require(URL(string: "http://localhost:8081/"))) == settings.http)
    }
}
