import Foundation
import HTTPServer
import PushRules
import RegistryCore
import Store

/// `POST /v1/push` (`push:send`): sends to every device of the users named, and answers with
/// each device's outcome once every device has one or the deadline has passed. A body with more
/// than 1,000 users or `"async": true` becomes a push job instead (202, see `PushJobIntake`).
extension APIContext {
    func addPushRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/push", body: .json, bodyLimit: PushJobRequest.jsonBodyLimit,
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let body = try RequestReading.json(request)
                if PushJobRequest.isJob(body) {
                    return try await PushJobIntake(jobs: pushJobs).receive(try PushJobRequest.parse(body))
                }
                let push = try PushRequest.parse(PushJobRequest.synchronous(body))
                let deadline = ContinuousClock.now + push.deadline
                let providers = Dictionary(
                    try await providers.all().map { ($0.provider.name, $0) }, uniquingKeysWith: { first, _ in first })
                let targets = try await devices(of: push)
                try Self.checkPayloadFits(push, targets: targets)
                let results = await withTaskGroup(of: (Int, PushResult).self) { group in
                    for (index, device) in targets.enumerated() {
                        let devicePush = DevicePush(
                            device: device, provider: providers[device.provider], request: push, deadline: deadline)
                        group.addTask { (index, await devicePush.run(context: self, senders: pushSenders)) }
                    }
                    var results = [PushResult?](repeating: nil, count: targets.count)
                    for await (index, result) in group { results[index] = result }
                    return results.compactMap { $0 }
                }
                await pushSenders.recordStatistics(of: Set(targets.map(\.provider)))
                return .json(PushResultsBody(results: results))
            })
    }

    /// Every targeted device, disabled ones included (they are listed as skipped), in a stable
    /// order: users as requested, then provider, type and token.
    private func devices(of push: PushRequest) async throws -> [Device] {
        try await withThrowingTaskGroup(of: (Int, [Device]).self) { group in
            for (index, user) in push.userIDs.enumerated() {
                group.addTask { (index, try await devices.devices(of: user, includeDisabled: true)) }
            }
            var byUser = [[Device]](repeating: [], count: push.userIDs.count)
            for try await (index, devices) in group {
                byUser[index] = devices.filter { push.targets(type: $0.type, provider: $0.provider) }.sorted {
                    ($0.provider.value, $0.type.rawValue, $0.token.value) < (
                        $1.provider.value, $1.type.rawValue, $1.token.value
                    )
                }
            }
            return byUser.flatMap { $0 }
        }
    }

    /// A section over the limit of every device it would go to is refused before anything is
    /// sent; one that fits some of them goes to those, and is `rejected` for the others.
    private static func checkPayloadFits(_ push: PushRequest, targets: [Device]) throws {
        var errors: [ValidationError] = []
        if let apns = push.apns {
            let types = Set(targets.map(\.type).filter { $0 != .fcm })
            if !types.isEmpty, !types.contains(where: { PayloadLimit.fits(apns.payload.count, $0) }) {
                let limit = types.map(PayloadLimit.maximumBytes).max() ?? 0
                errors.append(
                    ValidationError(
                        field: "apns.payload", message: "is \(apns.payload.count) bytes; at most \(limit) may be sent"))
            }
        }
        if let message = push.fcmMessage, targets.contains(where: { $0.type == .fcm }) {
            let size = PushRequest.compactJSON(.object(message)).count
            if !PayloadLimit.fits(size, .fcm) {
                errors.append(
                    ValidationError(
                        field: "fcm.message",
                        message: "is \(size) bytes; at most \(PayloadLimit.maximumBytes(for: .fcm)) may be sent"))
            }
        }
        if !errors.isEmpty { throw ValidationErrors(errors) }
    }
}
