import Foundation
import HTTPServer
import RegistryCore
import RegistryCrypto
import Store

/// `/v1/keys…` (admin): API keys. A secret is shown once, at creation; only its hash is stored.
extension APIContext {
    func addKeyRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/keys", body: .json,
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let input = try NewAPIKey.parse(try RequestReading.json(request))
                let secret = try APIKeySecret.generate()
                let record = try await keys.create(name: input.name, scopes: input.scopes, secretHash: secret.hashHex)
                return .json(CreatedKeyBody(key: APIKeyBody(record), secret: secret.value), status: .created)
            })

        router.add(
            .GET, "/v1/keys",
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                return .json(KeysBody(keys: try await keys.all().map(APIKeyBody.init)))
            })

        router.add(
            .DELETE, "/v1/keys/{id}",
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                try await keys.revoke(id: request.pathParameters["id"] ?? "")
                authenticator.cache.clear()  // in force here before we answer, not when the notification arrives
                return .empty(.noContent)
            })
    }
}
