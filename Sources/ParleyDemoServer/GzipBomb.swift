import CParleySystem
import Parley

/// A gzip body of zeros that inflates to far more than it weighs (about 1000 to 1), made without ever holding the
/// inflated bytes: one gzip member whose deflate data is cut by full flushes into 1 MiB pieces, all alike after the
/// first, so the body is `head`, `piece` repeated, and `tail` (the last partial MiB, the final block and the
/// trailer, whose CRC-32 is combined from the pieces').
package struct GzipBomb: Sendable {
    /// The gzip header and the first MiB.
    package let head: [UInt8]
    /// Each further MiB.
    package let piece: [UInt8]
    /// How many times `piece` follows `head`.
    package let repeats: Int
    /// The rest of the zeros, the final block and the gzip trailer.
    package let tail: [UInt8]

    /// Zeros in one piece.
    package static let pieceSize = 1 << 20

    /// The compressed size.
    package var count: Int { head.count + piece.count * repeats + tail.count }

    /// The whole compressed body, for small bombs.
    package var bytes: [UInt8] { head + Array([[UInt8]](repeating: piece, count: repeats).joined()) + tail }

    /// A bomb of `inflated` zeros; `nil` if zlib fails.
    package init?(inflated: Int) {
        let pieces = inflated / Self.pieceSize
        let rest = inflated % Self.pieceSize
        let zeros = [UInt8](repeating: 0, count: Self.pieceSize)
        guard let stream = Deflater(format: .gzip, level: Z_BEST_COMPRESSION) else { return nil }
        guard pieces > 0 else {
            guard let whole = stream.deflate([UInt8](repeating: 0, count: rest), flush: .finish) else { return nil }
            (head, piece, repeats, tail) = (whole, [], 0, [])
            return
        }
        guard let head = stream.deflate(zeros, flush: .full),
            let piece = pieces > 1 ? stream.deflate(zeros, flush: .full) : [],
            // A flush with no input right after a flush is refused (Z_BUF_ERROR): skip an empty rest.
            let last = rest == 0 ? [] : stream.deflate([UInt8](repeating: 0, count: rest), flush: .full),
            let final = stream.deflate([], flush: .finish), final.count >= 8
        else { return nil }
        // The trailer zlib wrote counts only the zeros it saw: write the whole body's CRC-32 and length instead.
        let pieceCRC = crc32(0, zeros, UInt32(zeros.count))
        var crc = pieceCRC
        for _ in 1..<pieces { crc = crc32_combine(crc, pieceCRC, .init(Self.pieceSize)) }
        let restCRC = [UInt8](repeating: 0, count: rest).withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32(rest)) }
        crc = crc32_combine(crc, restCRC, .init(rest))
        let length = UInt32(truncatingIfNeeded: inflated)
        let trailer =
            (0..<4).map { UInt8(truncatingIfNeeded: crc >> ($0 * 8)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
        self.head = head
        self.piece = piece
        self.repeats = pieces - 1
        self.tail = last + final.dropLast(8) + trailer
    }
}
