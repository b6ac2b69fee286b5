import CParleySystem
import Foundation
import Parley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Blocking reads and writes on the file descriptors of byte streams, shared by ``JSONRPCStreamChannel`` and
/// ``JSONRPCRouter/serve(input:output:framing:maxMessageSize:)``.
enum StreamIO {
    /// A blocking read of what is available; `nil` on error, empty at end of input.
    static func read(_ handle: FileHandle) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                #if canImport(Darwin)
                    Darwin.read(handle.fileDescriptor, raw.baseAddress, raw.count)
                #elseif canImport(Musl)
                    Musl.read(handle.fileDescriptor, raw.baseAddress, raw.count)
                #else
                    Glibc.read(handle.fileDescriptor, raw.baseAddress, raw.count)
                #endif
            }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno == EINTR { continue }
            return nil
        }
    }

    /// Writes every byte of `bytes` to `handle`.
    ///
    /// A reader that went away (a child process that exited, a closed pipe) is an error here, never a
    /// `SIGPIPE` that ends this process: on Linux the signal is blocked on this thread for the write and the
    /// one the write raised is taken back; on Darwin the descriptor is set not to raise it.
    static func write(_ bytes: Data, to handle: FileHandle) throws(ParleyError) {
        let descriptor = handle.fileDescriptor
        #if canImport(Darwin)
            _ = fcntl(descriptor, F_SETNOSIGPIPE, 1)
            let failure = writeAll(bytes, to: descriptor)
        #else
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            var previousMask = sigset_t()
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
            defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
            var pendingBefore = sigset_t()
            sigpending(&pendingBefore)
            let failure = writeAll(bytes, to: descriptor)
            if failure == EPIPE, sigismember(&pendingBefore, SIGPIPE) != 1 {
                // Take back the SIGPIPE this write raised, before the mask is restored and it would be delivered.
                var noWait = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&pipeSignal, nil, &noWait) == -1, errno == EINTR {}
            }
        #endif
        guard failure != 0 else { return }
        let reason = failure == EPIPE ? "the reader closed its end" : String(cString: strerror(failure))
        throw ParleyError(.transport, "Writing to the JSON-RPC peer failed: \(reason) (errno \(failure)).")
    }

    /// Writes until done; returns 0, or the `errno` that stopped it.
    private static func writeAll(_ bytes: Data, to descriptor: Int32) -> Int32 {
        bytes.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return 0 }
            var offset = 0
            while offset < raw.count {
                #if canImport(Darwin)
                    let written = Darwin.write(descriptor, base + offset, raw.count - offset)
                #elseif canImport(Musl)
                    let written = Musl.write(descriptor, base + offset, raw.count - offset)
                #else
                    let written = Glibc.write(descriptor, base + offset, raw.count - offset)
                #endif
                if written >= 0 {
                    offset += written
                } else if errno != EINTR {
                    return errno
                }
            }
            return 0
        }
    }
}
