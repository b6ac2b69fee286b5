// Swift 6.3.1 crashes compiling this (SILGen ownership verification: "Found ownership error?!"): a
// `catch let error as ParleyError where …` that reads the error in its condition and its body, after a `do` whose
// body throws only ParleyError (Parley's calls use typed throws). swiftlang/swift#89577.
// `scripts/check-compile-failures` expects the crash, and fails the day a compiler compiles this: then the README's
// known limitation can go. Write `catch { … }` instead: the error is already a ParleyError.
import Parley

struct Ping: Endpoint {
    typealias Response = JSONValue
    var path: Path = "/"
}

func call(_ client: Client) async throws {
    do {
        _ = try await client.send(Ping())
    } catch let error as ParleyError where error.serverPublicKeyPins != nil {
        print("not the pinned server; it presented", error.serverPublicKeyPins ?? [])
    }
}
