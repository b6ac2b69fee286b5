import ArgumentParser
import Parley

/// `parley get URL [ITEM…]`.
struct GetCommand: HTTPMethodCommand {
    static let method = HTTPRequest.Method.get
    static let configuration = makeConfiguration(
        abstract: "Send a GET request and print the response body (httpie style: key==value query items, Header:value).",
        examples: [
            "parley get http://127.0.0.1:8080/users/1",
            "parley get :8080/users page==2 per_page==10 Accept:application/json",
            "parley get -v --bearer \"$TOKEN\" http://127.0.0.1:8080/auth/me",
            "parley get http://127.0.0.1:8080/users > users.json    # the bytes as received",
        ]
    )
    @OptionGroup var options: HTTPOptions
}

/// `parley head URL [ITEM…]`.
struct HeadCommand: HTTPMethodCommand {
    static let method = HTTPRequest.Method.head
    static let configuration = makeConfiguration(
        abstract: "Send a HEAD request and print the response status line and header fields.",
        examples: ["parley head http://127.0.0.1:8080/users", "parley head :8080/download n==1048576 Range:bytes=0-99"]
    )
    @OptionGroup var options: HTTPOptions
}

/// `parley post URL [ITEM…]`.
struct PostCommand: HTTPMethodCommand {
    static let method = HTTPRequest.Method.post
    static let configuration = makeConfiguration(
        abstract: "Send a POST request with a JSON (or --form) body built from key=value and key:=json items.",
        examples: [
            "parley post http://127.0.0.1:8080/users name=Ada email=ada@example.com",
            "parley post :8080/echo count:=3 tags:='[\"a\",\"b\"]' X-Request-Id:42",
            "parley post --form :8080/echo user=ada note='two words'",
            "parley post --auth ada:secret :8080/echo 'equation\\=of=E\\=mc²'",
        ]
    )
    @OptionGroup var options: HTTPOptions
}

/// `parley put URL [ITEM…]`.
struct PutCommand: HTTPMethodCommand {
    static let method = HTTPRequest.Method.put
    static let configuration = makeConfiguration(
        abstract: "Send a PUT request with a JSON (or --form) body built from key=value and key:=json items.",
        examples: [
            "parley put http://127.0.0.1:8080/users/1 name='Ada Lovelace' email=ada@example.com",
            "parley put --retries 3 --timeout 10 :8080/users/1 profile:=@profile.json",
        ]
    )
    @OptionGroup var options: HTTPOptions
}

/// `parley patch URL [ITEM…]`.
struct PatchCommand: HTTPMethodCommand {
    static let method = HTTPRequest.Method.patch
    static let configuration = makeConfiguration(
        abstract: "Send a PATCH request with a JSON (or --form) body built from key=value and key:=json items.",
        examples: ["parley patch http://127.0.0.1:8080/echo active:=false", "parley patch -v :8080/echo note=@note.txt"]
    )
    @OptionGroup var options: HTTPOptions
}

/// `parley delete URL [ITEM…]`.
struct DeleteCommand: HTTPMethodCommand {
    static let method = HTTPRequest.Method.delete
    static let configuration = makeConfiguration(
        abstract: "Send a DELETE request and print the response body.",
        examples: ["parley delete http://127.0.0.1:8080/users/1", "parley delete --bearer \"$TOKEN\" :8080/echo reason==cleanup"]
    )
    @OptionGroup var options: HTTPOptions
}
