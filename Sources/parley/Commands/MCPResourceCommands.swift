import ArgumentParser
import Foundation
import Parley
import ParleyJSONRPC

/// `parley mcp resources TARGET`.
struct MCPResourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resources",
        abstract: "List the server's resources: URI, name, media type and description, tab-separated, one per line."
    )

    @Argument(help: ArgumentHelp("The server's URL (left out with --stdio).", valueName: "target"))
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    func validate() throws {
        try target.require(words, 0, 0, naming: "")
    }

    func run() async throws {
        try await MCPSessionRunner(options: target, url: target.split(words).url).run { mcp in
            for resource in try await mcp.listResources() {
                print(MCPOutput.line(resource.uri, resource.title ?? resource.name, resource.mimeType, resource.description))
            }
            return 0
        }
    }
}

/// `parley mcp templates TARGET`.
struct MCPTemplatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "templates",
        abstract: "List the server's resource templates: URI template, name, media type and description, one per line."
    )

    @Argument(help: ArgumentHelp("The server's URL (left out with --stdio).", valueName: "target"))
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    func validate() throws {
        try target.require(words, 0, 0, naming: "")
    }

    func run() async throws {
        try await MCPSessionRunner(options: target, url: target.split(words).url).run { mcp in
            for template in try await mcp.listResourceTemplates() {
                print(
                    MCPOutput.line(template.uriTemplate, template.title ?? template.name, template.mimeType, template.description)
                )
            }
            return 0
        }
    }
}

/// `parley mcp read TARGET URI [--output FILE]`.
struct MCPReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a resource: its text, or its bytes in base64 (--output FILE writes the bytes themselves).",
        discussion: """
            A text resource is printed with its control characters escaped (tabs and line feeds kept); --output \
            writes its exact bytes. A resource in several parts is printed part after part, and written to the \
            file one after the other.
            """
    )

    @Argument(
        help: ArgumentHelp("The server's URL (left out with --stdio), then the resource's URI.", valueName: "target uri")
    )
    var words: [String] = []

    @OptionGroup var target: MCPTargetOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the resource's bytes to this file.", valueName: "file"))
    var output: String?

    func validate() throws {
        try target.require(words, 1, 1, naming: "the resource's URI")
        if output?.isEmpty == true { throw ValidationError("--output takes a file name.") }
    }

    func run() async throws {
        let uri = target.split(words).rest.first ?? ""
        let file = output
        try await MCPSessionRunner(options: target, url: target.split(words).url).run { mcp in
            let contents = try await mcp.readResource(uri)
            if contents.isEmpty { MCPOutput.report("the server sent no contents for \(MCPOutput.field(uri)).") }
            var bytes = Data()
            for part in contents {
                if let blob = part.blob {
                    guard let data = Data(base64Encoded: blob, options: .ignoreUnknownCharacters) else {
                        throw ParleyError(
                            .decoding,
                            "The server's blob for \(MCPOutput.field(part.uri)) is not valid base64."
                        )
                    }
                    if file == nil { print(data.base64EncodedString()) } else { bytes += data }
                } else if let text = part.text {
                    if file == nil {
                        let printed = MCPOutput.text(text)
                        print(printed, terminator: printed.hasSuffix("\n") ? "" : "\n")
                    } else {
                        bytes += Data(text.utf8)
                    }
                }
            }
            if let file { try Self.write(bytes, to: file) }
            return 0
        }
    }

    private static func write(_ bytes: Data, to file: String) throws {
        do {
            try bytes.write(to: URL(fileURLWithPath: (file as NSString).expandingTildeInPath))
        } catch {
            throw ParleyError(.invalidRequest, "Cannot write \(file): \(error.localizedDescription)")
        }
    }
}
