// expect-error: type 'GetThing' does not conform to protocol 'Endpoint'
// expect-note: candidate would match if 'GetThing.Response' (aka 'Thing') conformed to 'Decodable'
// An endpoint whose Response Parley cannot decode (not Decodable, not Void) and that names no decoder.
import Parley

struct Thing: Sendable {}

struct GetThing: Endpoint {
    typealias Response = Thing
    var path: Path { "/thing" }
}
