import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Validation")
struct ValidationTests {
    @Test(
        "2xx is accepted by default; anything else is unacceptableStatus with status, headers and body",
        arguments: TransportKind.allCases
    )
    func defaultStatus(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(GetUser(id: 99)) }
            #expect(error?.status?.code == 404)
            #expect(error?.response?.headerFields[.contentType]?.hasPrefix("application/json") == true)
            #expect(error?.bodyExcerpt == #"{"error":"user 99 not found"}"#)
            #expect(error?.description.contains("404") == true)
            #expect(error?.description.contains("user 99 not found") == true)
            #expect(error?.request?.description.hasSuffix("/users/99") == true)

            let teapot = await expectParleyError(.unacceptableStatus) {
                try await client.send(GetVoid(path: "/status/418", query: ["body": String(repeating: "x", count: 10_000)]))
            }
            #expect(teapot?.body?.count == ParleyError.excerptLimit)
        }
    }

    @Test("acceptable status codes per client and per endpoint", arguments: TransportKind.allCases)
    func statusCodes(transport: TransportKind) async throws {
        try await withDemoClient(transport, configuration: .init(acceptableStatusCodes: [200...299, 404...404])) { client, _ in
            try await client.send(GetVoid(path: "/status/404"))
            await expectParleyError(.unacceptableStatus) { try await client.send(GetVoid(path: "/status/500")) }
            let endpoint = Get<JSONValue>(
                path: "/status/500",
                query: ["body": "{}", "contentType": "application/json"],
                acceptableStatusCodes: .codes(500)
            )
            let sent30 = try await client.send(endpoint)
            #expect(sent30 == .object([:]))
            let strict = Get<JSONValue>(path: "/status/404", acceptableStatusCodes: .successful)
            await expectParleyError(.unacceptableStatus) { try await client.send(strict) }
        }
    }

    @Test("acceptable content types per client and per endpoint", arguments: TransportKind.allCases)
    func contentTypes(transport: TransportKind) async throws {
        try await withDemoClient(transport, configuration: .init(acceptableContentTypes: ["application/json"])) { client, _ in
            _ = try await client.send(GetUser(id: 1))
            let error = await expectParleyError(.validation) { try await client.send(Get<JSONValue>(path: "/html")) }
            #expect(error?.description.contains("text/html") == true)
            let text = Get<JSONValue>(path: "/html", acceptableContentTypes: ["text/*"])
            await expectParleyError(.decoding) { try await client.send(text) }
            let none = await expectParleyError(.validation) { try await client.send(Get<JSONValue>(path: "/empty")) }
            #expect(none?.description.contains("no Content-Type") == true)
        }
    }

    @Test("a custom validator sees the response and the body", arguments: TransportKind.allCases)
    func customValidator(transport: TransportKind) async throws {
        let noErrors = ResponseValidator { response, data in
            if String(decoding: data, as: UTF8.self).contains("\"error\"") {
                throw ValidationFailure("the body reports an error (status \(response.status.code))")
            }
        }
        try await withDemoClient(transport, configuration: .init(acceptableStatusCodes: .any, validators: [noErrors])) {
            client,
            _ in
            _ = try await client.send(GetUser(id: 1))
            let error = await expectParleyError(.validation) { try await client.send(GetUser(id: 42)) }
            #expect(error?.message == "the body reports an error (status 404)")
            let endpointCheck = Get<JSONValue>(
                path: "/users/1",
                validators: [
                    .check("user 1 must be Grace") { _, data in
                        String(decoding: data, as: UTF8.self).contains("Grace")
                    }
                ]
            )
            let second = await expectParleyError(.validation) { try await client.send(endpointCheck) }
            #expect(second?.message == "user 1 must be Grace")
        }
    }

    @Test("required JSON keys: the error names every missing key path", arguments: TransportKind.allCases)
    func requiredKeys(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let profile = Get<JSONValue>(
                path: "/users/1/profile",
                validators: [.requiredJSONKeys(["id", "name", "email", "profile.bio", "profile.avatar"])]
            )
            let error = await expectParleyError(.validation) { try await client.send(profile) }
            #expect(error?.message == "missing required JSON keys: name, email, profile.avatar")
            #expect(error?.bodyExcerpt?.contains("\"profile\"") == true)

            let items = Get<JSONValue>(
                path: "/large-json",
                query: ["items": "3"],
                validators: [.requiredJSONKeys(["items[].id", "items[].name", "items[].price", "items[5].id"])]
            )
            let itemsError = await expectParleyError(.validation) { try await client.send(items) }
            #expect(
                itemsError?.message == "missing required JSON keys: items[0].price, items[1].price, items[2].price, items[5].id"
            )

            let ok = Get<JSONValue>(path: "/users/1", validators: [.requiredJSONKeys(["id", "name", "email"])])
            let sent88 = try await client.send(ok)
            #expect(sent88["id"] == .int(1))
            let notJSON = Get<JSONValue>(path: "/text", validators: [.requiredJSONKeys(["id"])])
            let notJSONError = await expectParleyError(.validation) { try await client.send(notJSON) }
            #expect(notJSONError?.message.contains("not valid JSON") == true)
        }
    }
}
