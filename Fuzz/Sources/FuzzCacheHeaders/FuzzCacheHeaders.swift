import FuzzSupport
import HTTPTypes
import OpenAPIRuntime
import Parley
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fuzzes the numbers and dates a server sends that the HTTP cache and the retry middleware read: `Cache-Control`
/// (`max-age`, `s-maxage`, `stale-while-revalidate`, `stale-if-error`, quoted arguments), `Age`, `Expires`, `Date`,
/// `Last-Modified` and `Retry-After`, all read by one saturating number parser. The first input byte is a separator
/// that cuts the rest into pieces: the response's `Cache-Control`, `Age`, `Expires`, `Date`, `Last-Modified`, the
/// revalidation answer's `Age`, the third request's `Cache-Control`, and a `Retry-After`; the second byte picks an
/// `ETag` (bit 0) and whether a revalidation is answered 304 or 200 (bit 1). A client with a cache GETs one URL three
/// times from an origin answering with those fields. Properties:
/// - no crash, whatever the numbers (a 9223372036854775807 `Age` once trapped);
/// - every answer carries Parley's `Cache-Status`; every answer from the cache one `Age` of at most 2^31, in digits;
/// - a fresh hit sends nothing to the origin; a `no-store` response is never answered from the cache;
/// - `Cache-Control: max-age=N` alone (no `Age`, no `Date`) is a hit on the next request, its `ttl` within two
///   seconds of min(N, 2^31), however many digits N has;
/// - a `Retry-After` of digits is exactly that many seconds, saturating at `Int.max`; anything else is no delay or a
///   non-negative one (an HTTP-date).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheHeaders(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    checkCacheHeaders(&input)
    return 0
}

let baseURL: URL = {
    guard let url = URL(string: "http://fuzz.invalid") else { FuzzCheck.fail("the base URL does not parse") }
    return url
}()

struct Page: Endpoint {
    typealias Response = Void
    var path: Path { "/page" }
    var headers: Headers = [:]
}

/// The origin: the first request answered 200 with `fields`; later ones (conditional or not) 304 (when `notModified`
/// and conditional) or 200, with `laterFields`.
final class ScriptedOrigin: ClientTransport, Sendable {
    let fields: [(HTTPField.Name, String)]
    let laterFields: [(HTTPField.Name, String)]
    let notModified: Bool
    let requests = Mutex(0)

    init(fields: [(HTTPField.Name, String)], laterFields: [(HTTPField.Name, String)], notModified: Bool) {
        self.fields = fields
        self.laterFields = laterFields
        self.notModified = notModified
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let number = requests.withLock { count in
            count += 1
            return count
        }
        let conditional = request.headerFields[.ifNoneMatch] != nil || request.headerFields[.ifModifiedSince] != nil
        var response = HTTPResponse(status: number > 1 && conditional && notModified ? .notModified : .ok)
        for (name, value) in number == 1 ? fields : laterFields {
            response.headerFields.append(HTTPField(name: name, value: value))
        }
        return (response, response.status == .ok ? HTTPBody("page") : nil)
    }
}

/// The digits of `text` as a number saturating at `limit` (the reference: no arithmetic, digit strings compared).
func referenceSaturating(_ digits: Substring, limit: Int) -> Int {
    let significant = digits.drop { $0 == "0" }
    let limitText = String(limit)
    if significant.count > limitText.count { return limit }
    if significant.count == limitText.count, String(significant) > limitText { return limit }
    return Int(significant.isEmpty ? "0" : String(significant)) ?? limit
}

func trimmedOWS(_ text: String) -> Substring {
    Substring(text).drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed().reduce(into: "") {
        $0.append($1)
    }
}

func isDigits(_ text: Substring) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
}

/// The `ttl` of a `Cache-Status`, if any.
func ttl(of response: HTTPResponse) -> Int? {
    guard let status = response.headerFields.first(where: { $0.name.canonicalName == "cache-status" })?.value,
        let range = status.range(of: "ttl=")
    else { return nil }
    return Int(status[range.upperBound...].prefix { $0 == "-" || $0.isNumber })
}

func checkCacheHeaders(_ input: inout FuzzInput) {
    let separator = input.takeByte()
    let flags = input.takeByte()
    let pieces = input.bytes.split(separator: separator, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    func piece(_ index: Int) -> String? { index < pieces.count ? pieces[index] : nil }

    checkRetryAfter(piece(7) ?? "")

    var fields: [(HTTPField.Name, String)] = []
    let names: [HTTPField.Name] = [.cacheControl, .age, .expires, .date, .lastModified]
    for (index, name) in names.enumerated() {
        if let value = piece(index) { fields.append((name, value)) }
    }
    if flags & 1 != 0 { fields.append((.eTag, "\"fuzz\"")) }
    var laterFields = fields.filter { $0.0 != .age }
    if let age = piece(5) { laterFields.append((.age, age)) }
    let origin = ScriptedOrigin(fields: fields, laterFields: laterFields, notModified: flags & 2 != 0)
    var third = Page()
    if let control = piece(6) { third.headers = ["Cache-Control": .init(control)] }

    let answers: [(HTTPResponse?, Int)] = Blocking.run { [third] in
        // No timers: a deadline is a task group per call, and nothing here waits.
        var configuration = Client.Configuration(responseHeadTimeout: nil, streamIdleTimeout: nil, responseBodyTimeout: nil)
        let cache = HTTPCache()
        configuration.cache = cache
        let client = Client(baseURL: baseURL, transport: origin, configuration: configuration)
        var answers: [(HTTPResponse?, Int)] = []
        for endpoint in [Page(), Page(), third] {
            let before = origin.requests.withLock { $0 }
            let response = try? await client.response(for: endpoint).response
            answers.append((response, origin.requests.withLock { $0 } - before))
            await cache.waitForRevalidations()  // a background revalidation is not the next request's
        }
        return answers
    }

    let control = piece(0) ?? ""
    let directives = control.split(separator: ",").map { trimmedOWS(String($0)).lowercased() }
    let noStore = !control.contains("\"") && directives.contains("no-store")
    for (response, sent) in answers {
        guard let response else { continue }  // a field value the client refuses to send is not the cache's business
        let outcome = HTTPCache.outcome(of: response)
        FuzzCheck.expect(outcome != nil, "no Cache-Status: \(response.headerFields)")
        if outcome == .hit, let ttl = ttl(of: response), ttl >= 0 {
            FuzzCheck.expect(sent == 0, "a fresh hit sent \(sent) requests")
        }
        if outcome != .miss {
            FuzzCheck.expect(!noStore, "a no-store response was answered from the cache (\(control))")
            let ages = response.headerFields[values: .age]
            FuzzCheck.expect(ages.count == 1, "an answer from the cache with \(ages.count) Age fields")
            if let age = ages.first {
                FuzzCheck.expect(isDigits(Substring(age)) && (Int(age) ?? .max) <= 2_147_483_648, "Age \(age)")
            }
        }
    }

    // max-age=N alone: a hit next time, its ttl min(N, 2^31) less the time the exchange took.
    let maxAge = "max-age="
    if control.hasPrefix(maxAge), isDigits(control.dropFirst(maxAge.count)), (piece(1) ?? "").isEmpty, (piece(3) ?? "").isEmpty,
        let second = answers[1].0
    {
        let expected = referenceSaturating(control.dropFirst(maxAge.count), limit: 2_147_483_648)
        if expected >= 3 {
            FuzzCheck.expect(HTTPCache.outcome(of: second) == .hit, "max-age=\(expected) was not a hit: \(second.headerFields)")
            let ttl = ttl(of: second) ?? -1
            FuzzCheck.expect((expected - 2...expected).contains(ttl), "max-age=\(expected) gave ttl=\(ttl)")
        }
    }
}

func checkRetryAfter(_ text: String) {
    let delay = RetryPolicy.retryAfterDelay(text)
    let trimmed = trimmedOWS(text)
    if isDigits(trimmed) {
        let expected = referenceSaturating(trimmed, limit: .max)
        FuzzCheck.expect(delay == .seconds(expected), "Retry-After \(text) gave \(String(describing: delay)), not \(expected) s")
    } else if let delay {
        FuzzCheck.expect(delay >= .zero, "Retry-After \(text) gave a negative delay \(delay)")
    }
}

@_cdecl("FuzzCacheHeaders_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzzCacheHeaders)
}
