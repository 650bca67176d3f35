import Foundation
import PushDelivery
import PushRules
import RegistryCore
import Store

/// One device's push within `POST /v1/push` and push jobs: skip it when it is disabled, has no
/// section for its service, or is a token the APNs push type does not suit (a VoIP token takes
/// only `voip`, a remote token never does: APNs answers the wrong kind `DeviceTokenNotForTopic`,
/// which would disable a good token); else send that section through `DeviceSend`.
struct DevicePush {
    let device: Device
    let provider: StoredProvider?
    let request: PushRequest
    let deadline: ContinuousClock.Instant
    /// `.bulk` for a push job's devices (see `DeviceSend.lane`).
    var lane: PushBudget.Lane = .interactive

    func run(context: Engine, senders: PushSenders) async -> PushResult {
        let started = ContinuousClock.now
        let (result, delivery) = await deliver(context: context, senders: senders)
        PushMetrics.record(
            result, service: device.type.service, delivery: delivery,
            duration: delivery.map { _ in started.duration(to: .now) })
        return result
    }

    /// The device's result, and the sender's when a sender was asked.
    private func deliver(context: Engine, senders: PushSenders) async -> (PushResult, DeliveryResult?) {
        let result = PushResult(device: device)
        if let reason = device.disabledReason {
            return (result.finished(.skipped, reason: "disabled: \(reason)"), nil)
        }
        let message: DeviceSend.Message
        switch (device.type.service, request.apns, request.fcmMessage) {
        case (.apns, let apns?, _):
            guard apns.options.pushType.suits(device.type) else {
                return (
                    result.finished(.skipped, reason: TokenMismatch.reason(apns.options.pushType, device.type)), nil
                )
            }
            // The limit is the device's (4 KiB, 5 KiB for a VoIP token), whatever the push type says.
            guard PayloadLimit.fits(apns.payload.count, device.type) else {
                return (result.finished(.rejected, reason: "PayloadTooLarge"), nil)
            }
            message = .apns(payload: { [payload = apns.payload] in payload }, options: apns.options)
        case (.fcm, _, let fcm?):
            message = .fcm(fcm)
        default:
            return (result.finished(.skipped, reason: "no \(device.type.service.rawValue) section"), nil)
        }
        guard let provider else { return (result.finished(.failed, reason: "ProviderNotFound"), nil) }
        return await DeviceSend(device: device, provider: provider, message: message, deadline: deadline, lane: lane)
            .deliver(context: context, senders: senders)
    }
}
