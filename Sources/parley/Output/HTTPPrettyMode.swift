import ArgumentParser
import Foundation

/// How a response body is shown, by httpie's `--pretty` names.
enum HTTPPrettyMode: String, ExpressibleByArgument, CaseIterable {
    /// Indented and coloured (JSON).
    case all
    /// Coloured, laid out as received.
    case colors
    /// Indented, without colours.
    case format
    /// Exactly the bytes received.
    case none

    /// Whether JSON is laid out again with an indent of two spaces.
    var formats: Bool { self == .all || self == .format }
    /// Whether JSON tokens are coloured.
    var colors: Bool { self == .all || self == .colors }

    /// `all` when standard output is a terminal (`format` when `NO_COLOR` is set), else `none`.
    static var automatic: HTTPPrettyMode {
        guard Terminal.isOutputTerminal else { return .none }
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return noColor ? .format : .all
    }
}
