import CallPush
import HTTPServer
import PushEngine
import RegistryCore
import Store

/// `/v1/devices…`: register, look up and delete by token, and the listing across users.
extension APIContext {
    func addDeviceRoutes(to router: inout Router) {
        // Answered without a task: the hottest route, whose work is one group-commit batch away.
        router.add(
            .POST, "/v1/devices", body: .json,
            immediately: guardedImmediately(.devicesWrite) { request, answer in
                _ = try RequestReading.query(request, allowed: [])
                let body = try RegistrationRequest.parse(try RequestReading.json(request))
                let registration = body.registration
                guard body.encryptsPayload else {
                    // Only what the answer needs is captured: each closure copies what it takes.
                    devices.register(registration) { [events, devices] result in
                        // One closure to the loop, the response made there inside it.
                        answer.onLoop {
                            answer.answerOnLoop {
                                Self.registered(try result.get(), payloadKey: nil, events: events, devices: devices)
                            }
                        }
                    }
                    return
                }
                // Made (and sealed) first: without a master key nothing is registered.
                let key = try credentialStore.payloadKeys.make(
                    provider: registration.provider, token: registration.token)
                answer.later { [events, devices] in
                    let (outcome, storedKey) = try await devices.register(
                        registration, payloadKey: key, rotate: body.rotatesPayloadKey)
                    return Self.registered(outcome, payloadKey: storedKey, events: events, devices: devices)
                }
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

    /// The answer to a registration that has committed.
    private static func registered(
        _ outcome: RegistrationOutcome, payloadKey: PayloadKey?, events: RegistryEvents, devices: DeviceStore
    ) -> HTTPResponse {
        events.registered(outcome)
        return ConsistencyToken.answer(
            .json(
                encoded: DeviceJSON.registrationBody(outcome, payloadKey: payloadKey),
                status: outcome.result == .created ? .created : .ok),
            after: devices)
    }
}
