#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port where every connection attempt is refused, for tests of "connection refused".
///
/// A socket is bound to `127.0.0.1:0` and never listens: the kernel answers a SYN to it with a reset, and no other
/// socket can take the port while it is held. The socket stays open until the process exits. (Binding a port and
/// closing it again is not enough: in a test process that starts many servers, the next server may be given the
/// same port, and the "refused" request reaches it.)
package enum RefusedPort {
    /// `http://127.0.0.1:PORT` on a fresh refusing port.
    package static func url() throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RefusedPortError(step: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw RefusedPortError(step: "bind", code: code)
        }
        var actual = sockaddr_in()
        var actualLength = length
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        guard named == 0 else {
            let code = errno
            close(descriptor)
            throw RefusedPortError(step: "getsockname", code: code)
        }
        return "http://127.0.0.1:\(UInt16(bigEndian: actual.sin_port))"
    }
}

/// A refusing port could not be set up.
package struct RefusedPortError: Error, CustomStringConvertible {
    /// The call that failed.
    package let step: String
    /// Its errno.
    package let code: Int32
    /// "bind failed with errno 98".
    package var description: String { "\(step) failed with errno \(code)" }
}
