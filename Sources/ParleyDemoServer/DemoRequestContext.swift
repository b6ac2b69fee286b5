import Hummingbird
import NIOCore

/// Request context that keeps a handle on the connection's channel so that routes can close
/// the connection abruptly (for example when the server stops while a request is hanging).
struct DemoRequestContext: RequestContext {
    /// Hummingbird's core context storage.
    var coreContext: CoreRequestContextStorage
    /// The child channel the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Allow bodies up to 16 MiB for echo and user routes.
    var maxUploadSize: Int { 16 * 1024 * 1024 }
}
