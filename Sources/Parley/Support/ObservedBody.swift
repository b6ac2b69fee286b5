import OpenAPIRuntime

/// A body passed on unchanged (streamed chunk by chunk, same length and replayability) while a
/// ``BodyObserver`` watches it. Nothing is buffered beyond the observer's capture limit.
struct ObservedBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let base: HTTPBody
    let observer: BodyObserver

    /// `body` watched by `observer`; when `body` is `nil`, the observer's report runs at once as finished.
    static func wrap(_ body: HTTPBody?, observer: BodyObserver) -> HTTPBody? {
        guard let body else {
            observer.end(.finished)
            return nil
        }
        return HTTPBody(
            ObservedBody(base: body, observer: observer),
            length: body.length,
            iterationBehavior: body.iterationBehavior
        )
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), observer: observer, iteration: observer.startIteration())
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let observer: BodyObserver
        let iteration: Int

        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                guard let chunk = try await base.next() else {
                    observer.end(.finished)
                    return nil
                }
                observer.record(chunk, iteration: iteration)
                return chunk
            } catch {
                observer.end(.failed(error))
                throw error
            }
        }
    }
}
