import CallPush
import Foundation
import PushDelivery
import RegistryCore
import Store

/// Sends one call event to every device of its users, each in its provider's format and by the
/// token rule (`DeliveryRule`), every push through `DeviceSend`. Knows nothing of idempotency:
/// `CallEventDispatch` runs it once per event id. A push job's worker sends its devices one by one
/// (`send(to:provider:key:deadline:)`) in the bulk lane.
struct CallEventSending {
    /// The longest a non-ringing event is sent for, however long its ttl (which only sets how long
    /// APNs and FCM keep it): the send API's own default deadline.
    static let maximumSendWindow: TimeInterval = 30

    let event: CallEvent
    let context: Engine
    var lane: PushBudget.Lane = .interactive
    /// A ring's stages; nil for a push job's devices.
    var timeline: RingTimeline?

    /// When sending stops: the event's expiry for a ring, at most `maximumSendWindow` from `now`.
    static func deadline(of event: CallEvent, now: Date) -> Date {
        min(event.expiresAt, now.addingTimeInterval(maximumSendWindow))
    }

    /// Every result for `targets`, the event's users' devices (`Engine.targetDevices`), in their
    /// order, sending until `deadline` (the claim's: `deadline(of:now:)` when it was made). Throws
    /// only when the providers cannot be read: then nothing was sent.
    func run(to targets: [Device], until latest: Date) async throws -> [PushResult] {
        let providers = try await context.providers(of: targets)
        let keys = try await context.callComposers.payloadKeys(of: targets, providers: providers)
        let deadline = ContinuousClock.now + .milliseconds(Int64(latest.timeIntervalSinceNow * 1000))
        timeline?.reach(.sending)
        let results = await withTaskGroup(of: (Int, PushResult).self) { group in
            for (index, device) in targets.enumerated() {
                let provider = providers[device.provider]
                let key = keys[device.provider]?[device.token.value]
                group.addTask { (index, await send(to: device, provider: provider, key: key, deadline: deadline)) }
            }
            var results = [PushResult?](repeating: nil, count: targets.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
        return results
    }

    /// One device's push, composed in its provider's format.
    func send(
        to device: Device, provider: StoredProvider?, key: PayloadKey?, deadline: ContinuousClock.Instant
    ) async -> PushResult {
        let started = ContinuousClock.now
        let (result, delivery) = await deliver(to: device, provider: provider, key: key, deadline: deadline)
        if let delivery {
            PushMetrics.record(
                result, service: device.type.service, delivery: delivery, duration: started.duration(to: .now))
        }
        CallEventMetrics.devicePushed(event.type, status: result.status)
        return result
    }

    private func deliver(
        to device: Device, provider: StoredProvider?, key: PayloadKey?, deadline: ContinuousClock.Instant
    ) async -> (PushResult, DeliveryResult?) {
        let result = PushResult(device: device)
        if let reason = device.disabledReason { return (result.finished(.skipped, reason: "disabled: \(reason)"), nil) }
        guard let provider else { return (result.finished(.failed, reason: "ProviderNotFound"), nil) }
        let target = PushTarget(
            userID: device.userID, tokenType: device.type, bundleID: provider.provider.topic,
            deviceID: device.deviceID, payloadKey: key)
        let composer = context.callComposers.composer(for: provider)
        let composed: ComposedPush
        do {
            composed = try composer.compose(event, for: target, now: Date())
        } catch {
            context.logger.error(
                "a call push could not be composed",
                metadata: ["provider": "\(provider.provider.name.value)", "error": "\(error)"])
            return (result.finished(.failed, reason: "PayloadSealingFailed"), nil)
        }
        switch composed.plan {
        case .skipped(let reason): return (result.finished(.skipped, reason: reason), nil)
        case .expired(let reason): return (result.finished(.expired, reason: reason), nil)
        case .apns, .fcm: break
        }
        let event = event
        guard
            let message = CallPushMessage.message(
                for: composed, recompose: { try? composer.compose(event, for: target, now: Date()) })
        else {
            return (result.finished(.failed, reason: "PayloadNotComposed"), nil)
        }
        timeline?.reach(.handedToSender)
        let delivered = await DeviceSend(
            device: device, provider: provider, message: message, deadline: deadline, lane: lane
        ).deliver(context: context, senders: context.pushSenders)
        timeline?.reach(.pushAnswered)
        return delivered
    }
}
