public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Fixture {
    /// Reads the fixture file at `url`.
    ///
    /// Fails with ``/Parley/ParleyError/Kind/decoding`` when the file cannot be read or is not a fixture; the message says
    /// how to record it.
    public init(contentsOf url: URL) throws(ParleyError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ParleyError(
                .decoding,
                "The fixture \(url.path) could not be read (\(error)). Record it first: run the test once against the "
                    + "real server with RecordingTransport(wrapping: liveTransport, fixture: <this URL>).",
                underlying: error
            )
        }
        do {
            self = try JSONDecoder().decode(Fixture.self, from: data)
        } catch {
            throw ParleyError(
                .decoding,
                "The file \(url.path) is not a Parley fixture (\(error)). Re-record it with RecordingTransport, or fix "
                    + "the JSON by hand (see the Fixture documentation for the format).",
                underlying: error
            )
        }
    }

    /// The fixture as the JSON text of its file, laid out for diffs: one line per header field and per body, keys
    /// in reading order, ending with a newline.
    public func encoded() throws(ParleyError) -> Data {
        do {
            return Data(try FixtureWriter.text(of: self).utf8)
        } catch {
            throw ParleyError(.encoding, "The fixture could not be encoded as JSON: \(error)", underlying: error)
        }
    }

    /// Writes the fixture to `url` atomically (a reader sees the old file or the new one, never half of one),
    /// creating the folder if needed.
    public func write(to url: URL) throws(ParleyError) {
        let data = try encoded()
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try data.write(to: url, options: .atomic)
        } catch {
            throw ParleyError(
                .invalidRequest,
                "The fixture could not be written to \(url.path): \(error). Check that the folder is writable.",
                underlying: error
            )
        }
    }
}
