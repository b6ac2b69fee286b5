import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// Byte chunks as an `AsyncSequence` failing with `ParleyError`, counting how many chunks were pulled.
struct ByteChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    typealias Failure = ParleyError

    let chunks: [ArraySlice<UInt8>]
    var failure: ParleyError?
    let pulls = LockedState(0)

    init(_ chunks: [ArraySlice<UInt8>], failingWith failure: ParleyError? = nil) {
        self.chunks = chunks
        self.failure = failure
    }

    init(_ texts: String...) {
        self.init(texts.map { Array($0.utf8)[...] })
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: ByteChunks
        var index = 0

        mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> ArraySlice<UInt8>? {
            guard index < source.chunks.count else {
                if let failure = source.failure { throw failure }
                return nil
            }
            source.pulls.withLock { $0 += 1 }
            index += 1
            return source.chunks[index - 1]
        }

        mutating func next() async throws(ParleyError) -> ArraySlice<UInt8>? {
            try await next(isolation: nil)
        }
    }
}

/// The lines of `bytes` cut every way, checking they all agree.
private func lines(
    of bytes: [UInt8],
    maxLineLength: Int = 1 << 20,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> [String] {
    var reference: [String]?
    for (name, chunks) in everyChunking(of: bytes) {
        var result: [String] = []
        for try await line in ByteChunks(chunks).lines(maxLineLength: maxLineLength) { result.append(line) }
        if let reference {
            #expect(result == reference, "fed \(name)", sourceLocation: sourceLocation)
        } else {
            reference = result
        }
    }
    return try #require(reference, sourceLocation: sourceLocation)
}

private func lines(
    of text: String,
    maxLineLength: Int = 1 << 20,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> [String] {
    try await lines(of: Array(text.utf8), maxLineLength: maxLineLength, sourceLocation: sourceLocation)
}

@Suite("LineSequence")
struct LineSequenceTests {
    @Test("lines end with LF or CRLF, cut anywhere; a lone CR is data; a last line without a line end counts")
    func lineEnds() async throws {
        #expect(try await lines(of: "a\nb\r\nc\rd\n\n\r\nlast") == ["a", "b", "c\rd", "", "", "last"])
        #expect(try await lines(of: "a\n") == ["a"])
        #expect(try await lines(of: "") == [])
        #expect(try await lines(of: "\n") == [""])
        #expect(try await lines(of: "x\r") == ["x\r"])
    }

    @Test("lines are UTF-8 with replacement characters; characters cut across chunks stay whole")
    func utf8() async throws {
        #expect(try await lines(of: "héllo 😀\n世界\n") == ["héllo 😀", "世界"])
        #expect(try await lines(of: [0x61, 0xFF, 0x0A, 0xE4, 0xB8]) == ["a\u{FFFD}", "\u{FFFD}"])
    }

    @Test("a line longer than maxLineLength fails with bodyTooLarge, also when it never ends")
    func lineTooLong() async throws {
        #expect(try await lines(of: "12345678\r\n12345678", maxLineLength: 8) == ["12345678", "12345678"])
        for text in ["123456789\n", "123456789", "1234\n123456789\r\n", "12345678\r\r\n"] {
            for (name, chunks) in everyChunking(of: Array(text.utf8)) {
                let error = await expectParleyError(.bodyTooLarge) {
                    for try await _ in ByteChunks(chunks).lines(maxLineLength: 8) {}
                }
                #expect(error?.message.contains("8 bytes") == true, "fed \(name)")
            }
        }
    }

    @Test("the base sequence's error comes through after the lines before it")
    func baseError() async throws {
        var iterator = ByteChunks([Array("a\nb".utf8)[...]], failingWith: ParleyError(.transport, "reset")).lines()
            .makeAsyncIterator()
        #expect(try await iterator.next() == "a")
        let error = await expectParleyError(.transport) { try await iterator.next() }
        #expect(error?.message == "reset")
    }

    @Test("lines pull chunks only as the consumer needs them")
    func lazy() async throws {
        let chunks = ByteChunks("a\nb\n", "c\n", "d\n")
        var iterator = chunks.lines().makeAsyncIterator()
        #expect(chunks.pulls.withLock { $0 } == 0)
        #expect(try await iterator.next() == "a")
        #expect(try await iterator.next() == "b")
        #expect(chunks.pulls.withLock { $0 } == 1)
        #expect(try await iterator.next() == "c")
        #expect(chunks.pulls.withLock { $0 } == 2)
    }
}
