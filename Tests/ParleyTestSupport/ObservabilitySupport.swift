import Foundation
import HTTPTypes
import InMemoryTracing
import Instrumentation
import Logging
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing
import Tracing

/// A swift-log `LogHandler` (swift-log's extension point) that keeps every record, for assertions.
final class LogRecorder: Sendable {
    /// One log record with the handler's and the call's metadata merged.
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
        let error: (any Error)?

        /// The metadata value for `key`, as text.
        subscript(_ key: String) -> String? { metadata[key].map { "\($0)" } }

        /// Everything the record shows: message, metadata and error, to check that a secret appears nowhere.
        var everything: String {
            ([message] + metadata.map { "\($0.key)=\($0.value)" } + [error.map { "\($0)" } ?? ""]).joined(separator: "\n")
        }
    }

    private let stored = LockedBox<[Record]>([])

    /// The records so far.
    var records: [Record] { stored.value }

    /// A logger at `level` writing into this recorder.
    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "parley.tests") { _ in Handler(recorder: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ record: Record) { stored.mutate { $0.append(record) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            recorder.append(Record(level: event.level, message: "\(event.message)", metadata: merged, error: event.error))
        }
    }
}

/// An `InMemoryTracer` whose trace context travels as a W3C `traceparent` field, as an OpenTelemetry tracer's
/// does: 32-hex trace ids, 16-hex span ids, `00-<trace>-<span>-01`.
struct W3CInMemoryTracer: Tracer {
    let base = InMemoryTracer(
        idGenerator: .init(
            nextTraceID: { (0..<2).map { _ in String(format: "%016llx", UInt64.random(in: 1...UInt64.max)) }.joined() },
            nextSpanID: { String(format: "%016llx", UInt64.random(in: 1...UInt64.max)) }
        )
    )

    var finishedSpans: [FinishedInMemorySpan] { base.finishedSpans }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> InstrumentationContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> InMemorySpan {
        base.startSpan(
            operationName,
            context: context(),
            ofKind: kind,
            at: instant(),
            function: function,
            file: fileID,
            line: line
        )
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout InstrumentationContext,
        using extractor: Extract
    ) where Carrier == Extract.Carrier {
        guard let field = extractor.extract(key: "traceparent", from: carrier) else { return }
        let parts = field.split(separator: "-")
        guard parts.count == 4 else { return }
        context.inMemorySpanContext = InMemorySpanContext(traceID: String(parts[1]), spanID: String(parts[2]), parentSpanID: nil)
    }
}

extension FinishedInMemorySpan {
    /// The attribute `name` as text (`nil` when not set).
    func attribute(_ name: String) -> String? {
        attributes.get(name).map { attribute in
            switch attribute {
            case .int64(let value): "\(value)"
            case .string(let value): value
            default: "\(attribute)"
            }
        }
    }
}

/// Runs `body` with a client whose every connection is refused (a port on 127.0.0.1 bound, never listening).
func withRefusingClient(
    _ transport: TransportKind,
    middlewares: [any ClientMiddleware],
    requestMiddlewares: [any ClientMiddleware] = [],
    _ body: (Client) async throws -> Void
) async throws {
    let client = Client(
        baseURL: try await DemoServer.closedPortURL(),
        transport: transport.makeTransport(),
        middlewares: middlewares,
        requestMiddlewares: requestMiddlewares
    )
    do {
        try await body(client)
    } catch {
        try await client.shutdown()
        throw error
    }
    try await client.shutdown()
}

/// Reports each time the rest of the chain has returned or thrown: for waiting on a call that winds down after its
/// caller has left (the client's timeout answers at once and leaves the cancelled work to finish).
struct ChainDone: ClientMiddleware {
    let done: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (done, continuation) = AsyncStream<Void>.makeStream() }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        defer { continuation.yield() }
        return try await next(request, body, baseURL)
    }

    /// Waits for the next end.
    func next() async {
        var ends = done.makeAsyncIterator()
        _ = await ends.next()
    }
}
