// expect-error: no exact matches in call to initializer
// expect-note: candidate requires that 'Thing' conform to 'Decodable'
// The default decoder cannot be made for a type it cannot decode, even by hand.
import Parley

struct Thing: Sendable {}

let decoder = DefaultResponseDecoder<Thing>()
