import Parley
import Tracing

/// The CLIENT span of one JSON-RPC call or batch, with OpenTelemetry's RPC and JSON-RPC attributes: `rpc.system`
/// (`jsonrpc`), `rpc.method`, `rpc.jsonrpc.version`, `rpc.jsonrpc.request_id`, and on an error object
/// `rpc.jsonrpc.error_code` and `rpc.jsonrpc.error_message`.
struct JSONRPCSpan {
    let span: any Span

    /// The span of the call `method` with `id`; `nil` without a tracer.
    init?(tracer: (any Tracer)?, method: String, id: JSONRPCID) {
        guard let tracer else { return nil }
        span = tracer.startSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        var attributes = SpanAttributes()
        attributes["rpc.system"] = "jsonrpc"
        attributes["rpc.method"] = method
        attributes["rpc.jsonrpc.version"] = "2.0"
        attributes["rpc.jsonrpc.request_id"] = id.description
        span.attributes.merge(attributes)
    }

    /// The span of a batch; `rpc.method` is set when all its calls are of one method.
    init?(tracer: (any Tracer)?, batch: JSONRPCExchange) {
        guard let tracer else { return nil }
        span = tracer.startSpan(batch.operationName, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        var attributes = SpanAttributes()
        attributes["rpc.system"] = "jsonrpc"
        attributes["rpc.jsonrpc.version"] = "2.0"
        if let first = batch.methods.first, batch.methods.allSatisfy({ $0 == first }) { attributes["rpc.method"] = first }
        attributes["parley.jsonrpc.batch_size"] = batch.methods.count
        span.attributes.merge(attributes)
    }

    /// Runs `body` with the span as the task's current context (the HTTP request's span becomes its child), then
    /// ends the span with its outcome.
    func run<Value: Sendable>(_ body: @Sendable () async throws(ParleyError) -> Value) async throws(ParleyError) -> Value {
        let outcome: Result<Value, ParleyError> = await ServiceContext.withValue(span.context) {
            do throws(ParleyError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success: end(failure: nil)
        case .failure(let error): end(failure: error)
        }
        return try outcome.get()
    }

    /// Ends the span, with the failure if there was one.
    func end(failure: ParleyError?) {
        if let failure {
            if let error = failure.jsonRPCError {
                span.attributes["rpc.jsonrpc.error_code"] = error.code
                span.attributes["rpc.jsonrpc.error_message"] = error.message
            }
            span.attributes["error.type"] = failure.kind.label
            span.recordError(failure)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }
}
