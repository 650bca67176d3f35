import CallPush
import HTTPServer
import PushEngine
import RegistryCore
import Store

/// `/v1/devices…`: register, look up and delete by token, and the listing across users.
extension APIContext {
    func addDeviceRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/devices", body: .json,
            handler: guarded(.devicesWrite) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let body = try RegistrationRequest.parse(try RequestReading.json(request))
                let registration = body.registration
                let outcome: RegistrationOutcome
                var storedKey: PayloadKey?
                if body.encryptsPayload {
                    // Made (and sealed) first: without a master key nothing is registered.
                    let key = try credentialStore.payloadKeys.make(
                        provider: registration.provider, token: registration.token)
                    (outcome, storedKey) = try await devices.register(
                        registration, payloadKey: key, rotate: body.rotatesPayloadKey)
                } else {
                    outcome = try await devices.register(registration)
                }
                events.registered(outcome)
                return ConsistencyToken.answer(
                    .json(
                        encoded: DeviceJSON.registrationBody(outcome, payloadKey: storedKey),
                        status: outcome.result == .created ? .created : .ok),
                    after: devices)
            })

        router.add(
            .GET, "/v1/devices",
            handler: guarded(.devicesRead) { request, _ in
                let query = try RequestReading.query(request, allowed: ListFilter.parameters + ["consistency"])
                let strong = try RequestReading.strongConsistency(query)
                // `consistency` says where to read, not what: the filter is the rest.
                let filter = try ListFilter.parse(query.filter { $0.key != "consistency" })
                let page = try await devices.list(
                    filter, strong: strong, after: try ConsistencyToken.sent(in: request))
                return .json(encoded: DeviceJSON.pageBody(page.devices, nextCursor: page.nextCursor))
            })

        router.add(
            .GET, "/v1/devices/{token}",
            handler: guarded(.devicesRead) { request, _ in
                let query = try RequestReading.query(request, allowed: ["provider", "consistency"])
                let device = try await devices.device(
                    token: request.pathParameters["token"] ?? "", provider: try RequestReading.provider(query),
                    strong: try RequestReading.strongConsistency(query), after: try ConsistencyToken.sent(in: request))
                return .json(encoded: DeviceJSON.deviceBody(device))
            })

        router.add(
            .DELETE, "/v1/devices/{token}",
            handler: guarded(.devicesWrite) { request, _ in
                let provider = try RequestReading.provider(try RequestReading.query(request, allowed: ["provider"]))
                let deleted = try await devices.delete(token: request.pathParameters["token"] ?? "", provider: provider)
                events.unregistered(deleted ? 1 : 0)
                return ConsistencyToken.answer(.empty(.noContent), after: devices)
            })
    }
}
