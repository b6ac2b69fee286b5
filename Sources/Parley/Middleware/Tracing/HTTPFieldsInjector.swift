import HTTPTypes
import Instrumentation

/// Lets a tracer write its propagation fields (W3C `traceparent`, `tracestate`, or its own) into a request's
/// header fields, replacing any of the same name.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        carrier[name] = value
    }
}
