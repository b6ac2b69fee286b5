public import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An HTTP cache by RFC 9111 for a client (``Client/Configuration/cache``): `GET` responses kept in a
/// ``HTTPCacheStore`` and answered from it while fresh, revalidated when stale.
///
/// ```swift
/// var configuration = Client.Configuration()
/// configuration.cache = HTTPCache()                                              // in memory, private
/// configuration.cache = HTTPCache(store: DiskCacheStore(folder: cachesFolder))   // kept between runs
/// ```
///
/// - **Freshness** from `s-maxage` (a shared cache only), `max-age`, `Expires` (against `Date`), else 10% of the time
///   since `Last-Modified` (at most a day) for the statuses RFC 9110 lets a cache store without one; the age counts
///   the response's `Age`, its `Date` and the time it took.
/// - **Variants** by `Vary` (`Vary: *` is never stored).
/// - **Not stored**: `no-store` (request or response), `private` in a shared cache, a request with `Authorization`
///   in a shared cache unless the response says `public`, `s-maxage` or `must-revalidate`, a body above
///   ``maxEntrySize``. **Revalidated every time**: `no-cache` (response), and a request's `no-cache` or `max-age=0`.
/// - **Stored as the caller reads**: the caller gets the head at once and the body as it comes, under its own
///   deadlines; the response is stored once the caller has read it to its end (a body dropped, failed or above
///   ``maxEntrySize`` is not). `Set-Cookie` is never stored: an answer from the cache sets no cookie (a revalidated
///   one only the `304`'s own), so a cookie deleted since does not come back.
/// - **Hostile input**: numbers (`Age`, `max-age`, …) saturate at 2^31 s; an entry a store reads back that no
///   response could have (a status outside 100–999, a field that is not one, a time beyond year 9999) is a miss, and
///   is removed.
/// - **Revalidation** with `If-None-Match` (the `ETag`) and `If-Modified-Since` (`Last-Modified`): a `304` updates the
///   stored head and answers with the stored response, so the caller decodes its typed value as for a `200`.
/// - **Stale answers** (RFC 5861): within `stale-while-revalidate` the stale response is answered at once and
///   revalidated in the background (``waitForRevalidations()`` waits for that); within `stale-if-error` it answers when
///   the origin fails or answers 5xx. Never after `must-revalidate`.
/// - **Invalidation**: a successful unsafe request (`POST`, `PUT`, `DELETE`, `PATCH`, …) removes the responses of its
///   URL, and of its `Location` and `Content-Location` on the same origin.
/// - **Outcome**: every response of a cacheable request carries `Cache-Status` (RFC 9211), such as `parley; hit; ttl=42`
///   or `parley; fwd=stale; fwd-status=304`, which ``outcome(of:)`` reads back; the logging and metrics middlewares
///   report it.
///
/// It is a client setting, not a middleware, because a stale-while-revalidate answer goes on after the call: its
/// revalidation needs the rest of the client (the transport) beyond the call's `next`. It runs on each redirect hop,
/// after the cookies of ``Client/Configuration/cookies`` are added: `Authorization`, `Cookie` and every other
/// credential header field (``SensitiveFields/current``: the client's ``Client/Configuration/sensitiveFields``, what
/// the auth middlewares add) always count as if the response varied on them, kept as SHA-256 fingerprints, so that no
/// user of a client gets an answer stored for another. Requests with a body,
/// a `Range` or conditional fields of their own go past it; `206` and `304` answers are never stored, nor answers with
/// neither freshness nor a validator, nor event streams.
public final class HTTPCache: Sendable {
    /// What the cache did for a request.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// Answered from the cache, fresh.
        case hit
        /// Sent to the origin (nothing stored, a stored response could not be used, or the request asked for a new one).
        case miss
        /// Stale, revalidated with the origin, which answered `304 Not Modified`: answered from the cache.
        case revalidated
        /// Answered from the cache though stale (`stale-while-revalidate`, or `stale-if-error` when the origin failed).
        case stale
    }

    /// Where responses are kept.
    public let store: any HTTPCacheStore
    /// Whether the cache is shared between users (a proxy's): then `private` responses, and those to requests with
    /// `Authorization` not marked for sharing, are not stored, and `s-maxage` applies. `false` by default: a client's
    /// cache is private.
    public let isShared: Bool
    /// The largest body stored; larger responses stream through unstored.
    public let maxEntrySize: Int
    /// The most variants kept per URL.
    public let maxVariants = 8
    /// The owner of the work that outlives a call: revalidations and stores.
    private let tasks = TaskLoop()
    /// Background revalidations in flight, one per key.
    private let revalidations = LockedState<[String: TaskLoop.Handle]>([:])
    /// Responses read to their end by their callers and being stored, the last per key (each waits for the one before
    /// it): a request for the key waits for them first, so that a body read whole is a hit next time.
    private let pendingStores = LockedState<(next: UInt64, tasks: [String: (id: UInt64, task: TaskLoop.Handle)])>(
        (0, [:])
    )

    /// A cache in `store` (memory by default), private unless `isShared`.
    public init(store: any HTTPCacheStore = MemoryCacheStore(), isShared: Bool = false, maxEntrySize: Int = 8 * 1024 * 1024) {
        self.store = store
        self.isShared = isShared
        self.maxEntrySize = max(0, maxEntrySize)
    }

    /// Returns once the background revalidations started so far (stale-while-revalidate) have ended, and the
    /// responses read to their end so far are stored.
    public func waitForRevalidations() async {
        while !Task.isCancelled,
            let task = revalidations.withLock({ $0.values.first }) ?? pendingStores.withLock({ $0.tasks.values.first?.task })
        {
            await task.wait()
        }
    }

    /// Removes every stored response.
    public func removeAll() async {
        await store.removeAll()
    }

    /// The outcome a response's `Cache-Status` field reports for this cache (`nil` when Parley's cache did not see it).
    public static func outcome(of response: HTTPResponse) -> Outcome? {
        guard let field = response.headerFields[values: cacheStatus].last(where: { $0.hasPrefix(cacheName) }) else {
            return nil
        }
        let parameters = Set(field.split(separator: ";").map { String($0.trimmingHTTPWhitespace()) })
        if parameters.contains("hit") {
            return parameters.contains(where: { $0.hasPrefix("ttl=-") }) ? .stale : .hit
        }
        if parameters.contains("fwd-status=304") { return .revalidated }
        if parameters.contains(where: { $0.hasPrefix("detail=stale-if-error") }) { return .stale }
        return .miss
    }

    /// `Pragma` (HTTP/1.0's `no-cache`).
    static let pragma = HTTPField.Name("Pragma") ?? .cacheControl  // SAFE: a valid field name; never the fallback
    /// `Cache-Status`.
    static let cacheStatus = HTTPField.Name("Cache-Status") ?? .server  // SAFE: a valid field name; never the fallback
    static let cacheName = "parley"

    // MARK: - The stage

    typealias Handler = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)

    /// One request through the cache; `next` sends it on (redirects, transport).
    func handle(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        next: @escaping Handler
    ) async throws -> (
        HTTPResponse, HTTPBody?
    ) {
        let target = RequestTarget.of(request, baseURL: baseURL)
        guard request.method == .get else {
            let (response, responseBody) = try await next(request, body, baseURL)
            if ![.head, .options, .trace].contains(request.method), (200..<400).contains(response.status.code) {
                await invalidate(target, response: response)
            }
            return (response, responseBody)
        }
        // Not the cache's business: a GET with a body (its answer depends on it), a range, or the caller's own
        // conditional request (its 304 or 206 answers that caller only).
        let own: [HTTPField.Name] = [.range, .ifRange, .ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince]
        if body != nil || own.contains(where: { request.headerFields[$0] != nil }) {
            return try await next(request, body, baseURL)
        }
        let requestControl = CacheControl(request.headerFields[values: .cacheControl])
        let pragmaNoCache = request.headerFields[values: Self.pragma].contains { $0.lowercased().contains("no-cache") }
        let key = "GET " + target.text
        if requestControl.noStore {
            let (response, responseBody) = try await next(request, body, baseURL)
            return (Self.marked(response, "fwd=request"), responseBody)
        }
        let now = Date()
        let stored = await validResponses(for: key)
        guard let index = stored.firstIndex(where: { Self.varies($0, matching: request) }) else {
            if requestControl.onlyIfCached { return (Self.gatewayTimeout(), nil) }
            return try await fetch(
                request,
                baseURL: baseURL,
                key: key,
                next: next,
                detail: stored.isEmpty ? "uri-miss" : "vary-miss"
            )
        }
        let cached = stored[index]
        let head = cached.head
        let control = CacheControl(head.headerFields[values: .cacheControl])
        let lifetime = freshnessLifetime(head, control: control, cached: cached)
        let age = Self.currentAge(cached, head: head, now: now)
        let wantsRevalidation =
            requestControl.noCache || pragmaNoCache || control.noCache
            || requestControl.seconds("max-age").map { age > TimeInterval($0) } == true
        if !wantsRevalidation, age < lifetime {
            return Self.answer(cached, head: head, age: age, status: "hit; ttl=\(Int(saturating: lifetime - age))")
        }
        if requestControl.onlyIfCached { return (Self.gatewayTimeout(), nil) }
        let staleness = age - lifetime
        if !wantsRevalidation, !control.mustRevalidate, let window = control.seconds("stale-while-revalidate"),
            staleness < TimeInterval(window)
        {
            revalidateInBackground(request, baseURL: baseURL, key: key, cached: cached, next: next)
            return Self.answer(
                cached,
                head: head,
                age: age,
                status: "hit; ttl=-\(Int(saturating: staleness.rounded(.up))); detail=stale-while-revalidate"
            )
        }
        let staleIfError =
            control.mustRevalidate ? nil : (control.seconds("stale-if-error") ?? requestControl.seconds("stale-if-error"))
        let servesOnError = staleIfError.map { staleness < TimeInterval($0) } ?? false
        do {
            let (response, responseBody) = try await revalidate(
                request,
                baseURL: baseURL,
                key: key,
                cached: cached,
                keepingOnServerError: servesOnError,
                next: next
            )
            if servesOnError, response.status.code >= 500 {
                await UnusedBody.drain(responseBody)
                return Self.answer(
                    cached,
                    head: head,
                    age: age,
                    status: "fwd=stale; fwd-status=\(response.status.code); detail=stale-if-error",
                    settingCookies: response.headerFields[values: .setCookie]
                )
            }
            return (response, responseBody)
        } catch  where servesOnError && !Task.isCancelled {
            return Self.answer(cached, head: head, age: age, status: "fwd=stale; detail=stale-if-error")
        }
    }

    /// Sends `request` (no usable stored response) and stores the response when it may.
    private func fetch(
        _ request: HTTPRequest,
        baseURL: URL,
        key: String,
        next: Handler,
        detail: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let requestTime = Date()
        let (response, responseBody) = try await next(request, nil, baseURL)
        return try await storing(
            response,
            body: responseBody,
            for: request,
            key: key,
            requestTime: requestTime,
            detail: "fwd=\(detail)"
        )
    }

    /// Sends `request` made conditional on `cached`'s validators: a `304` refreshes and answers with `cached`.
    private func revalidate(
        _ request: HTTPRequest,
        baseURL: URL,
        key: String,
        cached: CachedResponse,
        keepingOnServerError: Bool = false,
        next: Handler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var conditional = request
        let head = cached.head
        if let etag = head.headerFields[.eTag] { conditional.headerFields[.ifNoneMatch] = etag }
        if let modified = head.headerFields[.lastModified] { conditional.headerFields[.ifModifiedSince] = modified }
        let requestTime = Date()
        let (response, responseBody) = try await next(conditional, nil, baseURL)
        // A 5xx the stale response will stand in for (stale-if-error) does not replace it.
        if keepingOnServerError, response.status.code >= 500 { return (response, responseBody) }
        guard response.status.code == 304 else {
            return try await storing(
                response,
                body: responseBody,
                for: request,
                key: key,
                requestTime: requestTime,
                detail: "fwd=stale; fwd-status=\(response.status.code)"
            )
        }
        await UnusedBody.drain(responseBody)
        var refreshed = cached
        refreshed.update(with: response, requestTime: requestTime, responseTime: Date())
        await replace(refreshed, for: request, key: key)
        let updated = refreshed.head
        let age = Self.currentAge(refreshed, head: updated, now: Date())
        return Self.answer(
            refreshed,
            head: updated,
            age: age,
            status: "fwd=stale; fwd-status=304",
            settingCookies: response.headerFields[values: .setCookie]
        )
    }

    private func revalidateInBackground(
        _ request: HTTPRequest,
        baseURL: URL,
        key: String,
        cached: CachedResponse,
        next: @escaping Handler
    ) {
        revalidations.withLock { revalidations in
            guard revalidations[key] == nil else { return }  // one at a time per key
            // Stale-while-revalidate answers at once and revalidates after the call (one per key), in the cache's loop.
            revalidations[key] = tasks.run { [self] in
                if let (_, body) = try? await revalidate(request, baseURL: baseURL, key: key, cached: cached, next: next) {
                    // Read to its end, so that a new response is stored (no caller reads it), unless it is too large to be.
                    var iterator = body?.makeAsyncIterator()
                    var count = 0
                    while count <= maxEntrySize, let chunk = try? await iterator?.next() { count += chunk.count }
                }
                _ = self.revalidations.withLock { $0.removeValue(forKey: key) }
            }
        }
    }

    /// Stores `response` when it may be, and hands it on marked. The body is stored as the caller reads it (a tee,
    /// under the caller's deadlines): once read to its end within ``maxEntrySize``; a larger body, a failed or an
    /// abandoned reading stores nothing.
    private func storing(
        _ response: HTTPResponse,
        body: HTTPBody?,
        for request: HTTPRequest,
        key: String,
        requestTime: Date,
        detail: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard isStorable(response, for: request) else { return (Self.marked(response, detail), body) }
        if let length = body?.knownLength, length > maxEntrySize { return (Self.marked(response, detail), body) }
        let varied = Self.variedValues(response, request: request)
        let responseTime = Date()
        guard let body else {
            let entry = CachedResponse(
                response,
                body: Data(),
                requestTime: requestTime,
                responseTime: responseTime,
                varied: varied
            )
            await replace(entry, for: request, key: key)
            return (Self.marked(response, detail + "; stored"), nil)
        }
        let stored = LockedState(false)
        let tee = StoringTee(limit: maxEntrySize) { [self] bytes in
            // A body read more than once (a replayable one) is stored once.
            let first = stored.withLock { done in
                defer { done = true }
                return !done
            }
            guard first else { return }
            let entry = CachedResponse(
                response,
                body: Data(bytes),
                requestTime: requestTime,
                responseTime: responseTime,
                varied: varied
            )
            await storeInBackground(entry, for: request, key: key).wait()
        }
        return (Self.marked(response, detail), body.watched(by: tee))
    }

    /// Stores `entry` after the stores of `key` already under way; ``handle(_:body:baseURL:next:)`` waits for it, and
    /// so does the reader of the body (the returned task), before it sees the body's end.
    @discardableResult
    private func storeInBackground(_ entry: CachedResponse, for request: HTTPRequest, key: String) -> TaskLoop.Handle {
        pendingStores.withLock { pending in
            let id = pending.next
            pending.next += 1
            let previous = pending.tasks[key]?.task
            // In the cache's loop: the store ends after the caller read the body; the key's next look-up awaits it.
            let task = tasks.run { [self] in
                await previous?.wait()
                await replace(entry, for: request, key: key)
                pendingStores.withLock { pending in
                    if pending.tasks[key]?.id == id { pending.tasks[key] = nil }
                }
            }
            pending.tasks[key] = (id, task)
            return task
        }
    }

    /// The stored responses of `key` that are ``CachedResponse/isValid``, once the stores under way for it are done;
    /// the others are removed from the store.
    private func validResponses(for key: String) async -> [CachedResponse] {
        if let pending = pendingStores.withLock({ $0.tasks[key]?.task }) { await pending.wait() }
        let stored = await store.responses(for: key)
        let valid = stored.filter(\.isValid)
        if valid.count < stored.count { await store.store(valid, for: key) }
        return valid
    }

    /// Stores `entry` in place of the variant it matches.
    private func replace(_ entry: CachedResponse, for request: HTTPRequest, key: String) async {
        var variants = await store.responses(for: key)
        variants.removeAll { !$0.isValid || Self.varies($0, matching: request) }
        variants.insert(entry, at: 0)
        await store.store(Array(variants.prefix(maxVariants)), for: key)
    }

    private func invalidate(_ target: RequestTarget, response: HTTPResponse) async {
        var urls = [target.text]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name], let named = target.resolving(value), !named.host.isEmpty else {
                continue
            }
            if named.origin == target.origin { urls.append(named.text) }
        }
        for target in urls { await store.store([], for: "GET " + target) }
    }
}
