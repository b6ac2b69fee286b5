/// The bytes of one fuzz input, with helpers to take parameters off its front.
public struct FuzzInput {
    /// The bytes not taken yet.
    public private(set) var bytes: ArraySlice<UInt8>

    /// The input libFuzzer passed.
    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        if let data, count > 0 {
            bytes = ArraySlice(UnsafeBufferPointer(start: data, count: count))
        } else {
            bytes = []
        }
    }

    /// The input from bytes (regression tests, replays).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    /// Takes the first byte, or 0 when none is left.
    public mutating func takeByte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    /// The rest as text, invalid UTF-8 replaced.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
