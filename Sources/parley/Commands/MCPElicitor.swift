import Foundation
import Parley
import ParleyJSONRPC

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Answers the server's questions (elicitation): on a terminal by asking the user, field by field, or to open a URL;
/// in a script from `--elicit FIELD=VALUE`. A question that cannot be answered is declined, and standard error says
/// why. One question is asked at a time.
struct MCPElicitor: Sendable {
    /// `--elicit` values by field name.
    let answers: [String: String]
    /// Whether the user can be asked (standard input is a terminal).
    let interactive: Bool
    private let conversation = MCPConversation()

    init(answers: [String: String], interactive: Bool) {
        self.answers = answers
        self.interactive = interactive
    }

    /// Whether standard input is a terminal.
    static var isInputTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// The answer to `request`, after the questions before it.
    func answer(_ request: MCPElicitationRequest) async -> MCPElicitationResult {
        await conversation.turn { await decide(request) }
    }

    private func decide(_ request: MCPElicitationRequest) async -> MCPElicitationResult {
        switch request.mode {
        case .form:
            let fields = MCPFormField.fields(of: request.requestedSchema)
            if fields.isEmpty {
                // A form without fields asks only for consent.
                return interactive
                    ? await confirm(request, "Press Enter to accept, or n to decline: ")
                    : declined(request, "it asks for consent, which needs a terminal")
            }
            return interactive ? await ask(request, fields) : fill(request, fields)
        case .url:
            guard interactive else {
                return declined(request, "it asks to open \(url(of: request)), which needs a terminal")
            }
            Terminal.writeError("The server asks you to open \(url(of: request))\n")
            return await confirm(request, "Press Enter to accept (then open it yourself), or n to decline: ")
        default:
            return declined(request, "this client does not know its mode \(MCPOutput.field(request.mode.rawValue))")
        }
    }

    /// The form filled from `--elicit`; declined when a value does not fit or a required field has none.
    private func fill(_ request: MCPElicitationRequest, _ fields: [MCPFormField]) -> MCPElicitationResult {
        var content: [String: JSONValue] = [:]
        for field in fields {
            let name = MCPOutput.field(field.name)
            if let given = answers[field.name] {
                switch field.value(from: given) {
                case .success(let value): content[field.name] = value
                case .failure(let refusal): return declined(request, "--elicit \(name): \(refusal.reason)")
                }
            } else if field.isRequired {
                guard let value = field.defaultValue else {
                    return declined(request, "its required field \(name) has no answer; give --elicit \(name)=VALUE")
                }
                content[field.name] = value
            }
        }
        return .accept(content)
    }

    /// The form asked for on the terminal, field by field (the ones `--elicit` answers aside); Ctrl-D declines.
    private func ask(_ request: MCPElicitationRequest, _ fields: [MCPFormField]) async -> MCPElicitationResult {
        Terminal.writeError("The server asks: \(PrintableText.escaping(request.message))\n")
        var content: [String: JSONValue] = [:]
        for field in fields {
            if let given = answers[field.name], case .success(let value) = field.value(from: given) {
                content[field.name] = value
                continue
            }
            asking: while true {
                Terminal.writeError(field.prompt)
                guard let line = await Self.readLine() else { return endOfInput(request) }
                if line.isEmpty {
                    if let value = field.defaultValue {
                        content[field.name] = value
                    } else if field.isRequired {
                        Terminal.writeError("This field is required (Ctrl-D declines).\n")
                        continue asking
                    }
                    break asking
                }
                switch field.value(from: line) {
                case .success(let value):
                    content[field.name] = value
                    break asking
                case .failure(let refusal):
                    Terminal.writeError("\(refusal.reason).\n")
                }
            }
        }
        return .accept(content)
    }

    /// Asks to accept (Enter or y) or decline (n, or Ctrl-D).
    private func confirm(_ request: MCPElicitationRequest, _ question: String) async -> MCPElicitationResult {
        Terminal.writeError("\(PrintableText.escaping(request.message))\n\(question)")
        while true {
            guard let line = await Self.readLine() else { return endOfInput(request) }
            switch line.trimmingCharacters(in: .whitespaces).lowercased() {
            case "", "y", "yes": return .accept()
            case "n", "no": return .decline
            default: Terminal.writeError("Enter accepts, n declines: ")
            }
        }
    }

    private func endOfInput(_ request: MCPElicitationRequest) -> MCPElicitationResult {
        Terminal.writeError("\n")
        return declined(request, "end of input (Ctrl-D)")
    }

    /// Declines `request`, saying why on standard error.
    private func declined(_ request: MCPElicitationRequest, _ reason: String) -> MCPElicitationResult {
        let question = PrintableText.escaping(String(request.message.prefix(200)))
        MCPOutput.report("declined the server's question \"\(question)\": \(reason).")
        return .decline
    }

    private func url(of request: MCPElicitationRequest) -> String {
        request.url.map { MCPOutput.field(String($0.prefix(2048))) } ?? "(no URL given)"
    }

    /// A line of standard input, read on a thread of its own (the wait does not hold a task's thread); `nil` at its
    /// end.
    static func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Swift.readLine(strippingNewline: true)) }.start()
        }
    }
}

/// The questions being asked on the terminal, one at a time.
actor MCPConversation {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once the turns before it have ended.
    func turn<Value: Sendable>(_ body: @Sendable () async -> Value) async -> Value {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        let value = await body()
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        return value
    }
}
