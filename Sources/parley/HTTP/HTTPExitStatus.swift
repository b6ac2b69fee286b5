import ArgumentParser
import Parley

/// The exit statuses of `parley get` and its siblings, close to httpie's `--check-status`.
enum HTTPExitStatus {
    /// The text for `--help`.
    static let summary = """
        Exit status: 0 for a 2xx answer; 3, 4 or 5 for a final 3xx (a redirect not followed), 4xx or 5xx answer \
        (whose body is still printed on standard output); 2 when --timeout fired; 6 for a redirect refused or one \
        too many; 64 for a usage error (a bad option or request item); 1 for anything else, such as a refused \
        connection. Errors are described on standard error.
        """

    /// The status for a response with status code `code`: 0 for 2xx, 3/4/5 for 3xx/4xx/5xx, 1 otherwise.
    static func code(forStatus code: Int) -> Int32 {
        switch code {
        case 200..<300: 0
        case 300..<400: 3
        case 400..<500: 4
        case 500..<600: 5
        default: 1
        }
    }

    /// The status for a call that failed with `error`.
    static func code(for error: ParleyError) -> Int32 {
        switch error.kind {
        case .timeout: 2
        case .redirect: 6
        case .unacceptableStatus: error.status.map { code(forStatus: $0.code) } ?? 1
        default: 1
        }
    }
}
