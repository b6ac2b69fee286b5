import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import Parley

/// Routes for retries and redirects.
///
/// - `/flaky?key=K&failures=N&status=503&retry-after=S` (GET, POST, PUT): the first `N` requests for key `K`
///   answer `status` (default 503, `Retry-After: S` when given), later ones 200 with
///   `{"key":…,"attempts":…}`. `GET /flaky/count?key=K` tells how many requests key `K` has had.
/// - `/redirect?to=URL&status=302` (any of GET, HEAD, POST, PUT, DELETE): a redirect to `to` (absolute or
///   relative); without `to`, a 3xx without `Location`.
/// - `/redirect/chain/{n}`: `n` hops of 302 down to `/echo`.
/// - `/redirect/loop`: a 302 back to itself.
enum ResilienceRoutes {
    /// Registers the routes on `router`.
    static func register(on router: Router<DemoRequestContext>) {
        let counters = NIOLockedValueBox<[String: Int]>([:])
        for method in [HTTPRequest.Method.get, .post, .put] {
            router.on("flaky", method: method) { request, _ -> Response in
                try self.flaky(request, counters: counters)
            }
            router.on("redirect", method: method) { request, _ -> Response in
                self.redirect(request)
            }
        }
        for method in [HTTPRequest.Method.head, .delete] {
            router.on("redirect", method: method) { request, _ -> Response in self.redirect(request) }
        }
        router.get("flaky/count") { request, _ -> Response in
            let key = RequestTarget(request).queryItems.first("key") ?? ""
            return try DemoResponses.json(["key": key, "attempts": "\(counters.withLockedValue { $0[key] ?? 0 })"])
        }
        router.get("redirect/chain/{n}") { _, context -> Response in
            let hops = Int(context.parameters.get("n") ?? "") ?? 0
            let next = hops <= 1 ? "/echo" : "/redirect/chain/\(hops - 1)"
            return Response(status: .found, headers: [.location: next])
        }
        router.get("redirect/loop") { _, _ -> Response in
            Response(status: .found, headers: [.location: "/redirect/loop"])
        }
    }

    private static func flaky(_ request: Request, counters: NIOLockedValueBox<[String: Int]>) throws -> Response {
        let items = RequestTarget(request).queryItems
        let key = items.first("key") ?? ""
        let failures: Int
        let status: Int
        do throws(QueryError) {
            failures = try items.int("failures", in: 0...1000) ?? 2
            status = try items.int("status", in: 100...599) ?? 503
        } catch {
            return DemoResponses.error(error.message, status: .badRequest)
        }
        let attempt = counters.withLockedValue { counters in
            counters[key, default: 0] += 1
            return counters[key] ?? 0
        }
        guard attempt > failures else {
            var headers: HTTPFields = [.contentType: "application/json"]
            if let retryAfter = items.first("retry-after") { headers[.retryAfter] = retryAfter }
            return Response(
                status: HTTPResponse.Status(code: status),
                headers: headers,
                body: ResponseBody(byteBuffer: .init(string: #"{"error":"flaky","attempt":\#(attempt)}"#))
            )
        }
        return try DemoResponses.json(FlakyResult(key: key, attempts: attempt))
    }

    private static func redirect(_ request: Request) -> Response {
        let items = RequestTarget(request).queryItems
        let code = Int(items.first("status") ?? "") ?? 302
        guard let target = items.first("to") else { return Response(status: HTTPResponse.Status(code: code)) }
        return Response(status: HTTPResponse.Status(code: code), headers: [.location: target])
    }
}

/// The answer of `/flaky` once it succeeds.
struct FlakyResult: Codable, Sendable {
    let key: String
    let attempts: Int
}
