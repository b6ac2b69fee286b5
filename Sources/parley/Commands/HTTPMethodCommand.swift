import ArgumentParser
import Parley

/// `parley get`, `head`, `post`, `put`, `patch` and `delete`: one shared implementation (``HTTPCall``), one command
/// per method so that each has its own help and examples.
protocol HTTPMethodCommand: AsyncParsableCommand {
    /// The request method.
    static var method: HTTPRequest.Method { get }
    /// The arguments and options every method takes.
    var options: HTTPOptions { get }
}

extension HTTPMethodCommand {
    func run() async throws {
        try await HTTPCall(method: Self.method, options: options).run()
    }

    /// The configuration of the command for `method`: its abstract, then `examples` and the shared help.
    static func makeConfiguration(abstract: String, examples: [String]) -> CommandConfiguration {
        CommandConfiguration(
            commandName: method.rawValue.lowercased(),
            abstract: abstract,
            discussion: "Examples:\n" + examples.map { "  " + $0 }.joined(separator: "\n") + "\n\n" + sharedDiscussion
        )
    }

    /// What every method's help explains: items, bodies, output, exit status.
    private static var sharedDiscussion: String {
        """
        Request items (httpie's syntax; quote each one for the shell):
          key=value      a string field of the JSON body: {"key":"value"}
          key:=json      a JSON field as written: n:=42 ok:=true tags:='["a","b"]'
          key=@file      a string field holding the text of a file
          key:=@file     a JSON field holding the JSON of a file
          Header:value   a request header field (repeat for several values)
          Header:        removes a default header (User-Agent, Accept)
          Header;        a header field with an empty value
          name==value    a query item, added to those of the URL
        An item is split at its first separator (the longest where several start at the same place: a:=1 is a JSON \
        field). A backslash makes the next :, =, @, ; or \\ an ordinary character, in names and values: \
        'a\\=b=c' is the field "a=b", 'X-Path:C\\:\\\\tmp' the header value C:\\tmp. Keys are taken as written (no \
        nested a[b] paths); a key given twice becomes an array of its values. File uploads (name@file) are not \
        items: use 'parley upload'.

        Body: data fields make a JSON object, members in the order given, sent with Content-Type: application/json \
        and Accept: application/json, */*;q=0.5. With --form, key=value fields make an \
        application/x-www-form-urlencoded body instead (a key:=json field is then an error). Without data fields \
        there is no body (--form alone sends an empty form).

        Output: the response body goes to standard output as it arrives. On a terminal a JSON body is indented by \
        two spaces, its keys in the server's order, and coloured; when standard output is a pipe or a file the \
        bytes are exactly those received (after gzip/deflate decoding), unless --pretty says otherwise. HEAD \
        prints the status line and header fields instead. --verbose writes the request (head and body) and the \
        response head on standard error, so piped output stays exactly the body; credentials in Authorization \
        and Proxy-Authorization are shown as <redacted>, and never appear in error messages either. Redirects \
        are followed (--max-redirects); --retries retries only methods that are safe to repeat (GET, HEAD, PUT, \
        DELETE), each retry noted on standard error.

        \(HTTPExitStatus.summary)
        """
    }
}
