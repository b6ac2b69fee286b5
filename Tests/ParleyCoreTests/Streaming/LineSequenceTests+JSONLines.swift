import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

private struct Reading: Codable, Sendable, Equatable {
    var sensor: String
    var value: Double
}

extension LineSequenceTests {
    @Test("each line that is not blank decodes as a value, whichever way the stream is cut")
    func jsonLines() async throws {
        let text = "{\"sensor\":\"a\",\"value\":1}\n\n \t\r\n{\"sensor\":\"b\",\"value\":2.5}\r\n{\"value\":3,\"sensor\":\"ç\"}"
        for (name, chunks) in everyChunking(of: Array(text.utf8)) {
            var values: [Reading] = []
            for try await value in ByteChunks(chunks).jsonLines(of: Reading.self) { values.append(value) }
            #expect(
                values == [Reading(sensor: "a", value: 1), Reading(sensor: "b", value: 2.5), Reading(sensor: "ç", value: 3)],
                "fed \(name)"
            )
        }
    }

    @Test("a line that does not decode fails naming its line number and coding path, with the line as the body")
    func jsonLineDecodingFailure() async throws {
        var iterator = ByteChunks("{\"sensor\":\"a\",\"value\":1}\n\n", "{\"sensor\":\"b\",\"value\":\"high\"}\n").jsonLines(
            of: Reading.self
        ).makeAsyncIterator()
        #expect(try await iterator.next() == Reading(sensor: "a", value: 1))
        let error = await expectParleyError(.decoding) { try await iterator.next() }
        #expect(
            error?.message.hasPrefix(
                "Line 3 of the newline-delimited JSON stream could not be decoded as Reading: expected Double at value"
            ) == true,
            "\(String(describing: error))"
        )
        #expect(error?.codingPath == "value")
        #expect(error?.bodyExcerpt == "{\"sensor\":\"b\",\"value\":\"high\"}")
        #expect(error?.underlying is DecodingError)
    }

    @Test("a line that is not JSON fails as decoding; a long line's excerpt is cut at the excerpt limit")
    func jsonLineNotJSON() async throws {
        let error = await expectParleyError(.decoding) {
            for try await _ in ByteChunks("{\"sensor\":\n").jsonLines(of: Reading.self) {}
        }
        #expect(error?.message.contains("Line 1") == true)
        #expect(error?.message.contains("not valid JSON") == true)
        let long = "{\"sensor\":\"" + String(repeating: "x", count: 10_000) + "\"}\n"
        let longError = await expectParleyError(.decoding) {
            for try await _ in ByteChunks(long).jsonLines(of: Reading.self) {}
        }
        #expect(longError?.body?.count == ParleyError.excerptLimit)
        #expect(longError?.codingPath == "value")
    }

    @Test("the given decoder decodes each line, and maxLineLength limits each line")
    func jsonLineOptions() async throws {
        struct Snake: Decodable, Sendable, Equatable { var sensorName: String }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        var values: [Snake] = []
        for try await value in ByteChunks("{\"sensor_name\":\"a\"}\n").jsonLines(of: Snake.self, decoder: decoder) {
            values.append(value)
        }
        #expect(values == [Snake(sensorName: "a")])
        _ = await expectParleyError(.bodyTooLarge) {
            for try await _ in ByteChunks("{\"sensor\":\"a\",\"value\":1}\n").jsonLines(of: Reading.self, maxLineLength: 10) {}
        }
    }

    @Test("JSON lines pull chunks only as the consumer needs them")
    func jsonLinesLazy() async throws {
        let chunks = ByteChunks(
            "{\"sensor\":\"a\",\"value\":1}\n",
            "\n",
            "{\"sensor\":\"b\",\"value\":2}\n",
            "{\"sensor\":\"c\",\"value\":3}\n"
        )
        var iterator = chunks.jsonLines(of: Reading.self).makeAsyncIterator()
        #expect(try await iterator.next()?.sensor == "a")
        #expect(chunks.pulls.withLock { $0 } == 1)
        #expect(try await iterator.next()?.sensor == "b")  // skips the blank line's chunk
        #expect(chunks.pulls.withLock { $0 } == 3)
    }

    @Test("the splitter returns lines within one chunk without copying, and gathers lines spread over chunks")
    func splitter() throws {
        var splitter = LineSplitter(maxLineLength: 16)
        splitter.append(Array("ab\r\ncd".utf8)[...])
        #expect(try splitter.nextLine().map(Array.init) == Array("ab".utf8))
        #expect(try splitter.nextLine() == nil)
        splitter.append(Array("e\r".utf8)[...])
        #expect(try splitter.nextLine() == nil)
        splitter.append(Array("\nfg".utf8)[...])
        #expect(try splitter.nextLine().map(Array.init) == Array("cde".utf8))
        #expect(try splitter.nextLine() == nil)
        #expect(splitter.finish().map(Array.init) == Array("fg".utf8))
        #expect(splitter.finish() == nil)
    }
}
