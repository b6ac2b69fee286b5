import HTTPTypes
import Hummingbird
import NIOCore
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `/users` REST API backed by a per-server ``UserStore``.
enum UserRoutes {
    /// The JSON body accepted by `POST /users` and `PUT /users/{id}`.
    private struct UserInput: Decodable {
        let name: String?
        let email: String?
    }

    /// The deliberately incomplete body of `/users/{id}/profile`.
    private struct BrokenProfile: Encodable {
        struct Profile: Encodable { let bio: String }
        let id: Int
        let profile: Profile
    }

    /// Registers all user routes on `router`.
    static func register(on router: Router<DemoRequestContext>, store: UserStore) {
        router.get("users") { request, _ -> Response in
            let limit: Int?
            do throws(QueryError) {
                limit = try RequestTarget(request).queryItems.int("limit", in: 0...Int.max)
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            return try DemoResponses.json(store.list(limit: limit))
        }
        router.get("users/{id}") { _, context -> Response in
            let raw = context.parameters.get("id") ?? ""
            guard let id = Int(raw), let user = store.user(id: id) else { return self.notFound(raw) }
            return try DemoResponses.json(user)
        }
        router.get("users/{id}/profile") { _, context -> Response in
            let raw = context.parameters.get("id") ?? ""
            guard let id = Int(raw), store.user(id: id) != nil else { return self.notFound(raw) }
            return try DemoResponses.json(BrokenProfile(id: id, profile: .init(bio: "x")))
        }
        router.post("users") { request, context -> Response in
            switch try await self.decodeInput(request, context: context) {
            case .failure(let response): return response
            case .success(let input):
                let user = store.create(name: input.name, email: input.email)
                return try DemoResponses.json(user, status: .created)
            }
        }
        router.put("users/{id}") { request, context -> Response in
            let raw = context.parameters.get("id") ?? ""
            guard let id = Int(raw), store.user(id: id) != nil else { return self.notFound(raw) }
            switch try await self.decodeInput(request, context: context) {
            case .failure(let response): return response
            case .success(let input):
                guard let user = store.update(id: id, name: input.name, email: input.email) else { return self.notFound(raw) }
                return try DemoResponses.json(user)
            }
        }
        router.delete("users/{id}") { _, context -> Response in
            let raw = context.parameters.get("id") ?? ""
            guard let id = Int(raw), store.delete(id: id) else { return self.notFound(raw) }
            return Response(status: .noContent)
        }
    }

    private static func notFound(_ id: String) -> Response {
        DemoResponses.error("user \(id) not found", status: .notFound)
    }

    /// A validated name and e-mail, or the 422 response explaining what is wrong.
    private enum InputResult {
        case success((name: String, email: String))
        case failure(Response)
    }

    private static func decodeInput(_ request: Request, context: DemoRequestContext) async throws -> InputResult {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let input: UserInput
        do {
            input = try JSONDecoder().decode(UserInput.self, from: Data(body.readableBytesView))
        } catch {
            return .failure(self.unprocessable("body must be a JSON object with string fields 'name' and 'email'"))
        }
        guard let name = input.name else { return .failure(self.unprocessable("missing field 'name'")) }
        guard let email = input.email else { return .failure(self.unprocessable("missing field 'email'")) }
        guard !name.allSatisfy(\.isWhitespace) else { return .failure(self.unprocessable("'name' must not be empty")) }
        guard email.contains("@") else { return .failure(self.unprocessable("'email' must be an e-mail address")) }
        return .success((name: name, email: email))
    }

    private static func unprocessable(_ message: String) -> Response {
        DemoResponses.error(message, status: .unprocessableContent)
    }
}
