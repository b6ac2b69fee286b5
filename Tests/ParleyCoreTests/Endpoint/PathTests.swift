import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Path and query encoding")
struct PathTests {
    @Test(
        "an interpolated value is always exactly one segment",
        arguments: [
            ("../etc/passwd", "/files/..%2Fetc%2Fpasswd"),
            ("a/b?c#d", "/files/a%2Fb%3Fc%23d"),
            ("..", "/files/%2E%2E"),
            (".", "/files/%2E"),
            ("100%", "/files/100%25"),
            ("naïve café", "/files/na%C3%AFve%20caf%C3%A9"),
            ("a+b=c&d", "/files/a+b=c&d"),
        ]
    )
    func interpolatedSegment(name: String, expected: String) {
        let path: Path = "/files/\(name)"
        #expect(path.encoded == expected)
        #expect(Path.decode(segment: path.encoded.dropFirst("/files/".count)) == name)
    }

    @Test("literal text keeps its slashes and encodes what is illegal")
    func literal() {
        let path: Path = "/a b/c?d"
        #expect(path.encoded == "/a%20b/c%3Fd")
        #expect(Path(segments: ["x/y", "z"]).encoded == "/x%2Fy/z")
    }

    @Test("query names and values survive spaces, +, &, = and unicode")
    func query() {
        var query: Query = ["q": "a b+c&d=e", "emoji": "😀", "empty": ""]
        query.append("flag", nil)
        #expect(query.encoded == "q=a%20b%2Bc%26d%3De&emoji=%F0%9F%98%80&empty=&flag")
        let parsed = Query(percentEncoded: query.encoded)
        #expect(parsed == query)
    }
}
