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
        let send: DeviceSend
        switch prepared() {
        case .finished(let result):
            PushMetrics.record(result, service: device.type.service, delivery: nil, duration: nil)
            return result
        case .send(let prepared):
            send = prepared
        }
        let started = ContinuousClock.now
        let (result, delivery) = await send.deliver(context: context, senders: senders)
        PushMetrics.record(
            result, service: device.type.service, delivery: delivery,
            duration: delivery.map { _ in started.duration(to: .now) })
        return result
    }

    private enum Prepared {
        /// Never reaches a sender: skipped, too large, or no provider.
        case finished(PushResult)
        case send(DeviceSend)
    }

    /// The device's result when it is not sent, else its send. Not async: one async frame fewer
    /// on the path every push takes (each is allocated on the task, per push).
    private func prepared() -> Prepared {
        func finished(_ status: PushResult.Status, reason: String) -> Prepared {
            .finished(PushResult(device: device).finished(status, reason: reason))
        }
        if let reason = device.disabledReason {
            return finished(.skipped, reason: "disabled: \(reason)")
        }
        let message: DeviceSend.Message
        switch (device.type.service, request.apns, request.fcmMessage) {
        case (.apns, let apns?, _):
            guard apns.options.pushType.suits(device.type) else {
                return finished(.skipped, reason: TokenMismatch.reason(apns.options.pushType, device.type))
            }
            // The limit is the device's (4 KiB, 5 KiB for a VoIP token), whatever the push type says.
            guard PayloadLimit.fits(apns.payload.count, device.type) else {
                return finished(.rejected, reason: "PayloadTooLarge")
            }
            message = .apns(payload: { [payload = apns.payload] in payload }, options: apns.options)
        case (.fcm, _, let fcm?):
            message = .fcm(fcm)
        default:
            return finished(.skipped, reason: "no \(device.type.service.rawValue) section")
        }
        guard let provider else { return finished(.failed, reason: "ProviderNotFound") }
        return .send(DeviceSend(device: device, provider: provider, message: message, deadline: deadline, lane: lane))
    }
}
