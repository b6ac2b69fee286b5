import FuzzSupport
import Parley

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fuzzes path and query encoding. The first input byte is a separator that cuts the rest into pieces: the first
/// piece is a value interpolated into a path, the second a hand-encoded path, the others query names and values.
/// Properties:
/// - an interpolated value becomes one segment of RFC 3986 `pchar`s and upper-case `%XX` escapes (never `/`, `?`,
///   `#`), that decodes back to the value; a value of dots alone is all escapes;
/// - the client refuses (``ParleyError/Kind/invalidRequest``) exactly the paths with a segment that decodes to `.`
///   or `..` without being written so, and sends every other one unchanged, query appended;
/// - query names and values are encoded as unreserved characters and escapes, and decode back to themselves
///   through `Query(percentEncoded:)` and through Foundation's `URLComponents`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPathQuery(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    checkPathQuery(&input)
    return 0
}

func checkPathQuery(_ input: inout FuzzInput) {
    let separator = input.takeByte()
    let pieces = input.bytes.split(separator: separator, omittingEmptySubsequences: false)
    let value = String(decoding: pieces[0], as: UTF8.self)
    let rawPath = pieces.count > 1 ? String(decoding: pieces[1], as: UTF8.self) : "/"
    var query = Query()
    var index = 2
    while index < pieces.count {
        let name = String(decoding: pieces[index], as: UTF8.self)
        query.append(name, index + 1 < pieces.count ? String(decoding: pieces[index + 1], as: UTF8.self) : nil)
        index += 2
    }

    checkSegment(value, bytes: Array(pieces[0]))
    checkQuery(query)
    Blocking.run { [query] in
        await checkClient(Path("/files/\(value)"), query: query, refuse: value == "." || value == "..")
        await checkClient(Path(percentEncoded: rawPath), query: query, refuse: URIRules.hasEncodedDotSegment(rawPath))
    }
}

/// Checks the encoding of `value` as a path segment.
func checkSegment(_ value: String, bytes: [UInt8]) {
    let path: Path = "/files/\(value)"
    FuzzCheck.expect(path.encoded.hasPrefix("/files/"), "the literal part changed: \(path.encoded)")
    let segment = path.encoded.dropFirst("/files/".count)
    FuzzCheck.expect(URIRules.isEncoded(segment, allowing: URIRules.isPathCharacter), "not one pchar segment: \(segment)")
    FuzzCheck.expect(Path.decode(segment: segment) == value, "\(segment) does not decode to \(String(reflecting: value))")
    FuzzCheck.expect(URIRules.decode(segment) == Array(value.utf8), "\(segment) does not decode to the bytes of the value")
    if String(validating: bytes, as: UTF8.self) != nil {
        FuzzCheck.expect(URIRules.decode(segment) == bytes, "\(segment) does not decode to the input bytes")
    }
    if !value.isEmpty, value.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) {
        FuzzCheck.expect(segment == String(repeating: "%2E", count: value.utf8.count), "dots encoded as \(segment)")
    }
    let twice = Path(segments: [value, value]).encoded
    FuzzCheck.expect(twice == "/\(segment)/\(segment)", "segments [value, value] encoded as \(twice)")
}

func checkQuery(_ query: Query) {
    let encoded = query.encoded
    FuzzCheck.expect(
        URIRules.isEncoded(encoded) { URIRules.isUnreserved($0) || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "=") },
        "query encoded with reserved characters: \(encoded)"
    )
    // A nameless item without a value encodes to nothing, so it cannot come back.
    let expected = query.items.filter { !($0.name.isEmpty && $0.value == nil) }
    let decoded = Query(percentEncoded: encoded).items
    FuzzCheck.expect(decoded == expected, "query \(encoded) decodes to \(decoded), not \(expected)")
    guard let components = URLComponents(string: "http://127.0.0.1/p?\(encoded)") else {
        FuzzCheck.fail("Foundation refuses the URL with the query \(encoded)")
    }
    let foundation = (components.queryItems ?? []).filter { !($0.name.isEmpty && $0.value == nil) }
    FuzzCheck.expect(
        foundation.map { QueryItem($0.name, $0.value) } == expected,
        "Foundation reads the query \(encoded) as \(foundation), not \(expected)"
    )
}

let client = Client(baseURL: URL(string: "http://127.0.0.1/base")!, transport: EchoTransport())

struct Echo: Endpoint {
    typealias Response = String
    let path: Path
    let query: Query
}

/// Sends a request through a client and checks that it was refused, or sent with the path and query unchanged.
func checkClient(_ path: Path, query: Query, refuse: Bool) async {
    do {
        let target = try await client.send(Echo(path: path, query: query))
        FuzzCheck.expect(!refuse, "the path \(path.encoded) was sent although a segment decodes to a dot segment")
        var expected = "/base" + (path.encoded.isEmpty || path.encoded.hasPrefix("/") ? "" : "/") + path.encoded
        if !query.isEmpty { expected += "?" + query.encoded }
        // A hand-encoded path is sent as written; HTTPTypes turns control characters into spaces (and drops
        // trailing ones), so the comparison holds for paths without them.
        if path.encoded.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) {
            FuzzCheck.expect(target == expected, "sent \(target), expected \(expected)")
        }
    } catch {
        FuzzCheck.expect(error.kind == .invalidRequest, "the request failed with \(error.kind): \(error.message)")
        // A hand-encoded path with a control character or a space is refused too (HTTPTypes would have sent a space,
        // which is what a CR or LF smuggled into a request line looks like).
        let unsafeBytes = !path.encoded.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
        FuzzCheck.expect(refuse || unsafeBytes, "the path \(path.encoded) was refused: \(error.message)")
    }
}

@_cdecl("FuzzPathQuery_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzzPathQuery)
}
