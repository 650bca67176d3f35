import Foundation
import PushDelivery
import PushRules
import RegistryCore
import Store

/// One device's push within `POST /v1/push`: send it with the section for its service, then feed
/// a dead-token verdict to the registry through the same store call as `POST /v1/feedback`.
struct DevicePush {
    let device: Device
    let provider: StoredProvider?
    let request: PushRequest
    let deadline: ContinuousClock.Instant

    func run(context: APIContext, senders: PushSenders) async -> PushResult {
        let started = ContinuousClock.now
        let (result, delivery) = await deliver(context: context, senders: senders)
        PushMetrics.record(
            result, service: device.type.service, delivery: delivery,
            duration: delivery.map { _ in started.duration(to: .now) })
        return result
    }

    /// The device's result, and the sender's when a sender was asked.
    private func deliver(context: APIContext, senders: PushSenders) async -> (PushResult, DeliveryResult?) {
        var result = PushResult(device: device)
        if let reason = device.disabledReason {
            return (result.finished(.skipped, reason: "disabled: \(reason)"), nil)
        }
        let hasSection = device.type.service == .apns ? request.apns != nil : request.fcmMessage != nil
        guard hasSection else {
            return (result.finished(.skipped, reason: "no \(device.type.service.rawValue) section"), nil)
        }
        guard let provider else { return (result.finished(.failed, reason: "ProviderNotFound"), nil) }
        let name = provider.provider.name
        let delivery: DeliveryResult
        do {
            switch (try await senders.sender(for: provider), request.apns, request.fcmMessage) {
            case (.apns(let sender), let apns?, _) where device.type.service == .apns:
                // The limit is the device's (4 KiB, 5 KiB for a VoIP token), whatever the push type says.
                guard PayloadLimit.fits(apns.payload.count, device.type) else {
                    return (result.finished(.rejected, reason: "PayloadTooLarge"), nil)
                }
                delivery = await sender.send(
                    apns.payload, to: device.token.value, environment: device.environment ?? .production,
                    options: apns.options, deadline: deadline)
            case (.fcm(let sender), _, let message?) where device.type == .fcm:
                delivery = await sender.send(message, to: device.token.value, deadline: deadline)
            default:
                return (result.finished(.failed, reason: "TokenTypeNotForProvider"), nil)
            }
        } catch {
            return (
                result.finished(.failed, reason: error == .noCredentials ? "NoCredentials" : "CredentialsUnreadable"),
                nil
            )
        }
        switch delivery.status {
        case .sent(let serviceID):
            await senders.setHealthy(name)
            result.service_id = serviceID
            return (result.finished(.sent, reason: nil), delivery)
        case .tokenInvalid(let verdict):
            result.action = await applyVerdict(verdict, provider: name, context: context)
            return (result.finished(.tokenInvalid, reason: verdict.reason), delivery)
        case .rejected(let reason):
            return (result.finished(.rejected, reason: reason), delivery)
        case .authFailed(let reason):
            await senders.setUnhealthy(name, reason: reason)
            return (result.finished(.failed, reason: reason), delivery)
        case .failed(let reason):
            return (result.finished(.failed, reason: reason), delivery)
        case .expired(let reason):
            return (result.finished(.expired, reason: reason), delivery)
        }
    }

    /// The registry's action, or nil when the store could not be reached (the push service's
    /// verdict is still reported; the token is dealt with by the next push or feedback).
    private func applyVerdict(_ verdict: TokenVerdict, provider: ProviderName, context: APIContext) async
        -> FeedbackAction?
    {
        do {
            let action = try await context.devices.applyFeedback(
                provider: provider, token: device.token.value, policy: verdict.policy, reason: verdict.reason,
                reportedAt: verdict.observedAt)
            context.events.invalidated(action, provider: provider)
            return action
        } catch {
            context.logger.warning(
                "a push service's token verdict was not applied",
                metadata: ["provider": "\(provider.value)", "token": "\(device.token.redacted)", "error": "\(error)"])
            return nil
        }
    }
}
