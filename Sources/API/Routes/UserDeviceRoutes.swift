import HTTPServer
import PushEngine
import RegistryCore
import Store

/// `/v1/users/{user_id}/devices…`: what a call platform asks before ringing, and logout hooks.
extension APIContext {
    func addUserDeviceRoutes(to router: inout Router) {
        router.add(
            .GET, "/v1/users/{user_id}/devices",
            handler: guarded(.devicesRead) { request, _ in
                let user = try RequestReading.userID(request)
                let query = try RequestReading.query(
                    request, allowed: ["type", "provider", "include_disabled", "consistency"])
                let type = try query["type"].map { raw throws(ValidationError) in try TokenType(raw) }
                let list = try await devices.devices(
                    of: user, type: type, provider: try RequestReading.provider(query),
                    includeDisabled: try RequestReading.flag(query, "include_disabled"),
                    strong: try RequestReading.strongConsistency(query), after: try ConsistencyToken.sent(in: request))
                return .json(encoded: DeviceJSON.devicesBody(list))
            })

        router.add(
            .DELETE, "/v1/users/{user_id}/devices",
            handler: guarded(.devicesWrite) { request, _ in
                let user = try RequestReading.userID(request)
                _ = try RequestReading.query(request, allowed: [])
                let deleted = try await devices.unregisterAll(user: user)
                events.unregistered(deleted)
                return ConsistencyToken.answer(.json(DeletedBody(deleted: deleted)), after: devices)
            })

        // Always 204: whether the token was this user's, or has meanwhile moved to someone else
        // and was left alone, the caller's logout is done either way.
        router.add(
            .DELETE, "/v1/users/{user_id}/devices/{token}",
            handler: guarded(.devicesWrite) { request, _ in
                let user = try RequestReading.userID(request)
                let provider = try RequestReading.provider(try RequestReading.query(request, allowed: ["provider"]))
                let deleted = try await devices.unregister(
                    user: user, token: request.pathParameters["token"] ?? "", provider: provider)
                events.unregistered(deleted ? 1 : 0)
                return ConsistencyToken.answer(.empty(.noContent), after: devices)
            })
    }
}
