/// A gzip stream (RFC 1952) built without a compressor: one stored (uncompressed) deflate block.
///
/// Any conforming gunzip reads it; the fault server uses it for `/gzip` and cuts it for `/truncated-gzip`.
package struct GzipStream: Sendable {
    /// The whole stream: header, stored block, CRC-32 and length.
    package let bytes: [UInt8]

    /// The stream for `payload`'s first 65 535 bytes (what one stored block holds).
    package init(payload: [UInt8]) {
        let payload = Array(payload.prefix(0xFFFF))
        var bytes: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        let length = UInt16(payload.count)
        bytes.append(0x01)  // BFINAL = 1, BTYPE = 00 (stored); the rest of the byte is padding.
        bytes.append(contentsOf: Self.littleEndian(UInt32(length), count: 2))
        bytes.append(contentsOf: Self.littleEndian(UInt32(~length), count: 2))
        bytes.append(contentsOf: payload)
        bytes.append(contentsOf: Self.littleEndian(Self.crc32(payload), count: 4))
        bytes.append(contentsOf: Self.littleEndian(UInt32(payload.count), count: 4))
        self.bytes = bytes
    }

    /// The payload `/gzip` and `/truncated-gzip` compress: a JSON object with a long text.
    package static let demoPayload: [UInt8] = Array(
        (#"{"message":""# + String(repeating: "All work and no play. ", count: 80) + #""}"#).utf8
    )

    private static func littleEndian(_ value: UInt32, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }

    /// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit: the payloads are small.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
