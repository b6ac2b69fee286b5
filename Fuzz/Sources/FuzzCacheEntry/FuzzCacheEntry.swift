import FuzzSupport
import HTTPTypes
import OpenAPIRuntime
import Parley

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fuzzes the HTTP cache's stored-entry decoder: the input is the content of a ``DiskCacheStore`` file (JSON: the
/// key and its responses), as a file changed on disk would be. Properties:
/// - no crash, in the store or in the cache that uses what it read;
/// - the store hands back only entries that are `isValid` (status in 100...999, field names that are tokens, values
///   and reason phrases without control characters but tab, name and value pairs, times within years 1 to 9999),
///   and only for the key asked for; a `CachedResponse` decoded on its own is accepted exactly when it is valid;
/// - a file the store refuses is removed, and the next reading is empty; a file it accepts reads back the same;
/// - a client whose cache holds what was read answers a GET (from the cache or the origin) with one `Age` of at
///   most 2^31 digits-only seconds, and a `Cache-Status` of Parley's.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheEntry(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    checkCacheEntry(Array(input.bytes))
    return 0
}

/// The key every seed stores under.
let key = "GET http://fuzz.invalid/entry"

let baseURL: URL = {
    guard let url = URL(string: "http://fuzz.invalid") else { FuzzCheck.fail("the base URL does not parse") }
    return url
}()

/// A store's file, as far as the entries go.
struct Saved: Decodable {
    var responses: [CachedResponse]
}

/// The store's folder, and the file of ``key`` in it (found once, by storing an entry).
let folder: URL = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-fuzz-cache-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}()

let file: URL = {
    let store = DiskCacheStore(folder: folder)
    _ = Blocking.run {
        let cache = HTTPCache(store: store)
        let client = Client(baseURL: baseURL, transport: OriginTransport(), configuration: configuration(cache))
        _ = try? await client.send(Entry())
        await cache.waitForRevalidations()  // the body read, the response is stored
        return 0
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    guard let name = names.first(where: { $0.hasSuffix(".parley-cache") }) else { FuzzCheck.fail("no cache file was written") }
    return folder.appendingPathComponent(name)
}()

struct Entry: Endpoint {
    typealias Response = Void
    var path: Path { "/entry" }
}

/// Answers every request 200, cacheable for a minute, with an ETag (a 304 to a conditional request).
struct OriginTransport: ClientTransport {
    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var response = HTTPResponse(status: request.headerFields[.ifNoneMatch] == nil ? .ok : .notModified)
        response.headerFields[.cacheControl] = "max-age=60"
        response.headerFields[.eTag] = "\"origin\""
        return (response, response.status == .ok ? HTTPBody("origin") : nil)
    }
}

func configuration(_ cache: HTTPCache) -> Client.Configuration {
    // No timers: a deadline is a task group per call, and nothing here waits.
    var configuration = Client.Configuration(responseHeadTimeout: nil, streamIdleTimeout: nil, responseBodyTimeout: nil)
    configuration.cache = cache
    return configuration
}

func isText(_ text: String) -> Bool {
    text.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }
}

func isToken(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy { byte in
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

/// The reference: what a valid entry is.
func isValidEntry(_ entry: CachedResponse) -> Bool {
    let years = -63_113_904_000.0...252_423_993_600.0
    return (100...999).contains(entry.status) && isText(entry.reasonPhrase)
        && entry.fields.allSatisfy { $0.count == 2 && isToken($0[0]) && isText($0[1]) }
        && entry.varied.allSatisfy { isToken($0.key) && $0.key == $0.key.lowercased() && ($0.value.map(isText) ?? true) }
        && years.contains(entry.requestTime.timeIntervalSinceReferenceDate)
        && years.contains(entry.responseTime.timeIntervalSinceReferenceDate)
}

func checkCacheEntry(_ bytes: [UInt8]) {
    let data = Data(bytes)
    // A CachedResponse decoded on its own: accepted exactly when valid.
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    if let saved = try? decoder.decode(Saved.self, from: data) {
        for entry in saved.responses {
            FuzzCheck.expect(entry.isValid && isValidEntry(entry), "decoded an invalid entry: \(entry.status) \(entry.fields)")
        }
    }

    do {
        try data.write(to: file)
    } catch {
        FuzzCheck.fail("could not write the cache file: \(error)")
    }
    let store = DiskCacheStore(folder: folder)
    let first = Blocking.run { await store.responses(for: key) }
    for entry in first {
        FuzzCheck.expect(entry.isValid && isValidEntry(entry), "the store read back an invalid entry: \(entry.status) \(entry.fields)")
    }
    let exists = FileManager.default.fileExists(atPath: file.path)
    if first.isEmpty, !exists {
        FuzzCheck.expect(Blocking.run { await store.responses(for: key) }.isEmpty, "a removed file read back entries")
    }
    if !first.isEmpty {
        FuzzCheck.expect(exists, "a file read back was removed")
        let second = Blocking.run { await store.responses(for: key) }
        FuzzCheck.expect(second.map(\.status) == first.map(\.status) && second.map(\.fields) == first.map(\.fields), "a second reading differs")
    }

    // What was read, used by a cache: a hit, a revalidation or a miss, never a crash.
    guard !first.isEmpty else { return }
    let memory = MemoryCacheStore()
    let answer: HTTPResponse? = Blocking.run {
        await memory.store(first, for: key)
        let client = Client(baseURL: baseURL, transport: OriginTransport(), configuration: configuration(HTTPCache(store: memory)))
        return try? await client.response(for: Entry()).response
    }
    guard let answer else { return }
    FuzzCheck.expect(HTTPCache.outcome(of: answer) != nil, "no Cache-Status in \(answer.headerFields)")
    let ages = answer.headerFields[values: .age]
    FuzzCheck.expect(ages.count <= 1, "several Age fields: \(ages)")
    if let age = ages.first, HTTPCache.outcome(of: answer) != .miss {
        FuzzCheck.expect(!age.isEmpty && age.utf8.allSatisfy { (0x30...0x39).contains($0) } && age.count <= 10 && (Int(age) ?? .max) <= 2_147_483_648, "Age \(age)")
    }
}

@_cdecl("FuzzCacheEntry_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzzCacheEntry)
}
