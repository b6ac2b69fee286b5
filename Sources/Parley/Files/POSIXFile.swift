import CParleySystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few system calls Parley's file bodies and downloads make, named apart from the methods of the types
/// that call them, with `EINTR` retried.
enum POSIXFile {
    private static func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #elseif canImport(Musl)
            Musl.open(path, flags, mode)
        #else
            Darwin.open(path, flags, mode)
        #endif
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
            Musl.read(descriptor, buffer, count)
        #else
            Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, buffer, count)
        #elseif canImport(Musl)
            Musl.write(descriptor, buffer, count)
        #else
            Darwin.write(descriptor, buffer, count)
        #endif
    }

    /// Opens `path`; a negative result leaves the reason in `errno`.
    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) -> Int32 {
        var descriptor: Int32
        repeat {
            descriptor = systemOpen(path, flags | O_CLOEXEC, mode)
        } while descriptor < 0 && errno == EINTR
        return descriptor
    }

    /// Reads up to `count` bytes into `buffer`; 0 at the end of the file, negative with `errno` on failure.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer?, count: Int) -> Int {
        var result: Int
        repeat {
            result = systemRead(descriptor, buffer, count)
        } while result < 0 && errno == EINTR
        return result
    }

    /// Writes all of `bytes`; returns 0, or the `errno` of the failed write.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var written = 0
        while written < bytes.count {
            let result = systemWrite(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += result
        }
        return 0
    }

    /// The text of an `errno` value ("No such file or directory").
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

extension POSIXFile {
    /// Renames `source` to `destination`, replacing it atomically; returns 0 or the `errno`.
    static func rename(_ source: String, to destination: String) -> Int32 {
        #if canImport(Glibc)
            let result = Glibc.rename(source, destination)
        #elseif canImport(Musl)
            let result = Musl.rename(source, destination)
        #else
            let result = Darwin.rename(source, destination)
        #endif
        return result == 0 ? 0 : errno
    }

    /// Removes `path` if it exists.
    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// The size of the regular file at `path`, or `nil` when there is none.
    static func regularFileSize(_ path: String) -> Int64? {
        var status = parley_file_status()
        guard parley_status(path, &status) == 0, status.isRegular != 0 else { return nil }
        return status.size
    }

    /// Whether `path` is a directory.
    static func isDirectory(_ path: String) -> Bool {
        var status = parley_file_status()
        return parley_status(path, &status) == 0 && status.isDirectory != 0
    }

    /// Closes a descriptor.
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
            _ = Musl.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}

extension POSIXFile {
    /// Opens `path` for writing, created if missing, truncated or appended to; a descriptor, or `errno` negated.
    static func openForWriting(_ path: String, appending: Bool) -> Int32 {
        let descriptor = open(path, flags: O_WRONLY | O_CREAT | (appending ? O_APPEND : O_TRUNC))
        return descriptor >= 0 ? descriptor : -errno
    }
}
