import Foundation
import PushRules
import RegistryCore
import Store

/// `POST /v1/push` without a job: every device of the users named, each sent its section at once,
/// with its outcome once every device has one or the deadline has passed.
extension Engine {
    /// Each target device's result, in order (`targetDevices`). A `voip` push must be able to ring
    /// (`VoIPPushRule`), and a section too large for every device it would go to is refused
    /// before anything is sent (422 naming it).
    package func push(_ push: PushRequest, now: Date = Date()) async throws -> [PushResult] {
        try VoIPPushRule.check(push, now: now)
        let deadline = ContinuousClock.now + push.deadline
        let targets = try await targetDevices(of: push.userIDs) {
            push.targets(type: $0.type, provider: $0.provider)
        }
        let providers = try await providers(of: targets)
        try Self.checkPayloadFits(push, targets: targets)
        // A single device (the common call push) in this task, without a child task to create
        // and hand over to, nor a frame of `send` on the way.
        if targets.count == 1 {
            let devicePush = DevicePush(
                device: targets[0], provider: providers[targets[0].provider], request: push, deadline: deadline)
            return [await devicePush.run(context: self, senders: pushSenders)]
        }
        return await send(
            targets.map { DevicePush(device: $0, provider: providers[$0.provider], request: push, deadline: deadline) })
    }

    /// Every device's result, in order. The devices are sent to at once.
    private func send(_ pushes: [DevicePush]) async -> [PushResult] {
        await withTaskGroup(of: (Int, PushResult).self) { group in
            for (index, devicePush) in pushes.enumerated() {
                group.addTask { (index, await devicePush.run(context: self, senders: self.pushSenders)) }
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
            // Only the tokens the push type suits are sent to; the others are skipped whatever the
            // size. A loop, not sets of types: this runs once per push, usually for one device.
            var suited = false
            var fits = false
            var limit = 0
            for target in targets where apns.options.pushType.suits(target.type) {
                suited = true
                fits = PayloadLimit.fits(apns.payload.count, target.type)
                if fits { break }
                limit = max(limit, PayloadLimit.maximumBytes(for: target.type))
            }
            if suited, !fits {
                errors.append(
                    ValidationError(
                        field: "apns.payload", message: "is \(apns.payload.count) bytes; at most \(limit) may be sent"))
            }
        }
        if let message = push.fcmMessage, targets.contains(where: { $0.type == .fcm }) {
            let size = message.byteCount
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
