import Foundation
import Parley
import Testing

@testable import ParleyJSONRPC

/// The stateless era's routing headers: which fields a request carries, the specification's encoding of values that are
/// not plain tokens, and the `x-mcp-header` annotations a tool's schema may carry (the rules of the MCP Python SDK's
/// `find_invalid_x_mcp_header`, the reference implementation).
@Suite("MCP routing headers")
struct MCPRoutingHeadersTests {
    @Test("Plain visible ASCII is sent as is; anything else as =?base64?…?=")
    func encoding() {
        #expect(MCPRoutingHeaders.encoded("add") == "add")
        #expect(MCPRoutingHeaders.encoded("text://greeting?x=1 y") == "text://greeting?x=1 y")
        #expect(MCPRoutingHeaders.encoded("héllo") == "=?base64?aMOpbGxv?=")
        #expect(MCPRoutingHeaders.encoded(" padded") == "=?base64?IHBhZGRlZA==?=")
        #expect(MCPRoutingHeaders.encoded("line\r\nInjected: yes") == "=?base64?bGluZQ0KSW5qZWN0ZWQ6IHllcw==?=")
        // A value that looks like the encoded form is encoded too, so that the server decodes it back to itself.
        #expect(MCPRoutingHeaders.encoded("=?base64?YQ==?=") == "=?base64?PT9iYXNlNjQ/WVE9PT89?=")
    }

    @Test("Every request names its version and method; tools/call, prompts/get and resources/read their target")
    func fields() {
        let call = MCPRoutingHeaders.fields(
            version: "2026-07-28",
            method: "tools/call",
            params: ["name": "tenant_echo", "arguments": ["tenant": "ącme", "region": "eu", "flag": true, "n": 3]],
            parameterHeaders: [["tenant"]: "Tenant", ["flag"]: "Flag", ["n"]: "N", ["missing"]: "Missing"]
        )
        #expect(call["MCP-Protocol-Version"] == "2026-07-28")
        #expect(call["Mcp-Method"] == "tools/call")
        #expect(call["Mcp-Name"] == "tenant_echo")
        #expect(call["Mcp-Param-Tenant"] == "=?base64?xIVjbWU=?=")
        #expect(call["Mcp-Param-Flag"] == "true")
        #expect(call["Mcp-Param-N"] == "3")
        #expect(call["Mcp-Param-Missing"] == nil)
        let read = MCPRoutingHeaders.fields(version: "2026-07-28", method: "resources/read", params: ["uri": "blob://bytes"])
        #expect(read["Mcp-Name"] == "blob://bytes")
        let list = MCPRoutingHeaders.fields(version: "2026-07-28", method: "tools/list", params: [:])
        #expect(list["Mcp-Name"] == nil)
        #expect(list.fields.count == 2)
    }

    @Test("x-mcp-header: valid annotations by argument path, nested ones through properties")
    func validAnnotations() throws {
        let schema: JSONValue = [
            "type": "object",
            "properties": [
                "tenant": ["type": "string", "x-mcp-header": "Tenant"],
                "options": ["type": "object", "properties": ["dry": ["type": "boolean", "x-mcp-header": "Dry-Run"]]],
                "plain": ["type": "string"],
            ],
        ]
        let headers = try MCPRoutingHeaders.parameterHeaders(of: schema).get()
        #expect(headers == [["tenant"]: "Tenant", ["options", "dry"]: "Dry-Run"])
        #expect(try MCPRoutingHeaders.parameterHeaders(of: nil).get().isEmpty)
    }

    @Test(
        "x-mcp-header: invalid annotations leave the tool out",
        arguments: [
            // On a number: its text is not portable.
            ["type": "object", "properties": ["n": ["type": "number", "x-mcp-header": "N"]]],
            // Not a token.
            ["type": "object", "properties": ["t": ["type": "string", "x-mcp-header": "Bad Name"]]],
            // Not a string.
            ["type": "object", "properties": ["t": ["type": "string", "x-mcp-header": 7]]],
            // The same name twice, whatever the case.
            [
                "type": "object",
                "properties": [
                    "a": ["type": "string", "x-mcp-header": "Tenant"], "b": ["type": "string", "x-mcp-header": "tenant"],
                ],
            ],
            // Under items: not reached through properties alone.
            ["type": "object", "properties": ["list": ["type": "array", "items": ["type": "string", "x-mcp-header": "L"]]]],
            // On the root.
            ["type": "string", "x-mcp-header": "Root"],
        ] as [JSONValue]
    )
    func invalidAnnotations(schema: JSONValue) {
        guard case .failure(let invalid) = MCPRoutingHeaders.parameterHeaders(of: schema) else {
            Issue.record("accepted \(schema)")
            return
        }
        #expect(!invalid.reason.isEmpty)
    }

    @Test("A hostile schema (deep, wide) is checked within a bound, never crashing")
    func hostileSchema() {
        var deep: JSONValue = ["type": "string", "x-mcp-header": "Deep"]
        for _ in 0..<2000 { deep = ["type": "object", "properties": ["p": deep]] }
        #expect((try? MCPRoutingHeaders.parameterHeaders(of: deep).get())?.first?.key.count == 2000)
        let wide: JSONValue = ["anyOf": .array(Array(repeating: ["type": "string"], count: 200_000))]
        guard case .failure = MCPRoutingHeaders.parameterHeaders(of: wide) else {
            Issue.record("a 200 000-position schema was walked whole")
            return
        }
    }
}
