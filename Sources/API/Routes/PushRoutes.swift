import Foundation
import HTTPServer
import PushEngine
import PushRules
import RegistryCore
import Store

/// `POST /v1/push` (`push:send`): sends to every device of the users named, and answers with
/// each device's outcome once every device has one or the deadline has passed. A body with more
/// than 1,000 users or `"async": true`, or an NDJSON one, becomes a push job instead (202, see
/// `PushJobIntake`).
extension APIContext {
    func addPushRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/push", body: .jsonOrStreamed(streamedTypes: JobLines.contentTypes),
            bodyLimit: PushJobIntake.jsonBodyLimit,
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                if let stream = request.bodyStream {
                    return try await PushJobIntake(jobs: engine.pushJobs).receive(stream)
                }
                let body = try RequestReading.json(request)
                if PushJobRequest.isJob(body) {
                    return try await PushJobIntake(jobs: engine.pushJobs).receive(try PushJobRequest.parse(body))
                }
                let now = Date()
                let push = try PushRequest.parse(PushJobRequest.synchronous(body), now: now)
                try VoIPPushRule.check(push, now: now)
                let deadline = ContinuousClock.now + push.deadline
                let targets = try await engine.targetDevices(of: push.userIDs) {
                    push.targets(type: $0.type, provider: $0.provider)
                }
                let providers = try await engine.providers(of: targets)
                try Self.checkPayloadFits(push, targets: targets)
                let pushes = targets.map {
                    DevicePush(device: $0, provider: providers[$0.provider], request: push, deadline: deadline)
                }
                let results = await send(pushes)
                return .json(PushResultsBody(results: results))
            })
    }

    /// Every device's result, in order. The devices are sent to at once; a single one (the
    /// common call push) in this task, without a child task to create and hand over to.
    private func send(_ pushes: [DevicePush]) async -> [PushResult] {
        if pushes.count == 1 { return [await pushes[0].run(context: engine, senders: engine.pushSenders)] }
        return await withTaskGroup(of: (Int, PushResult).self) { group in
            for (index, devicePush) in pushes.enumerated() {
                group.addTask { (index, await devicePush.run(context: engine, senders: engine.pushSenders)) }
            }
            var results = [PushResult?](repeating: nil, count: pushes.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// A section over the limit of every device it would go to is refused before anything is
    /// sent; one that fits some of them goes to those, and is `rejected` for the others.
    private static func checkPayloadFits(_ push: PushRequest, targets: [Device]) throws {
        var errors: [ValidationError] = []
        if let apns = push.apns {
            // Only the tokens the push type suits are sent to; the others are skipped whatever the size.
            let types = Set(targets.map(\.type).filter { apns.options.pushType.suits($0) })
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
