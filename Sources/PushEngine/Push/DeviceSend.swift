import Foundation
import PushDelivery
import PushRules
import RegistryCore
import Store

/// One push, already composed, to one device: sent through its provider's sender, with a
/// dead-token verdict fed to the registry through the same store call as `POST /v1/feedback`.
/// The one path every push takes to a push service (`POST /v1/push`, call events), so results,
/// provider health and token verdicts mean the same whoever sends.
struct DeviceSend {
    /// What goes to the push service for this device.
    enum Message {
        /// The APNs request body, rendered when each attempt starts (see `APNsSender`), and its headers.
        case apns(payload: @Sendable () -> [UInt8], options: APNsSendOptions)
        /// An FCM v1 `message` without its `token`, which the sender adds.
        case fcm(FCMMessage)
    }

    let device: Device
    let provider: StoredProvider
    let message: Message
    let deadline: ContinuousClock.Instant
    /// The provider budget's lane: `.bulk` for push jobs, so they wait whenever a synchronous
    /// push or a ring does, and hold at most `PUSH_JOB_SHARE` of the budget.
    var lane: PushBudget.Lane = .interactive

    /// The device's result, and the sender's when a push service was asked.
    func deliver(context: Engine, senders: PushSenders) async -> (PushResult, DeliveryResult?) {
        let result = PushResult(device: device)
        let delivery: DeliveryResult
        do {
            switch (try await senders.sender(for: provider), message) {
            case (.apns(let sender), .apns(let payload, let options)) where device.type.service == .apns:
                delivery = await sender.send(
                    rendering: payload, to: device.token.value, environment: device.environment ?? .production,
                    options: options, deadline: deadline, lane: lane)
            case (.fcm(let sender), .fcm(let message)) where device.type == .fcm:
                delivery = await sender.send(message, to: device.token.value, deadline: deadline, lane: lane)
            default:
                return (result.finished(.failed, reason: "TokenTypeNotForProvider"), nil)
            }
        } catch {
            return (
                result.finished(.failed, reason: error == .noCredentials ? "NoCredentials" : "CredentialsUnreadable"),
                nil
            )
        }
        return (await outcome(of: delivery, result: result, context: context, senders: senders), delivery)
    }

    private func outcome(of delivery: DeliveryResult, result: PushResult, context: Engine, senders: PushSenders)
        async -> PushResult
    {
        let name = provider.provider.name
        var result = result
        result.attempts = delivery.attempts
        result.maybe_delivered = delivery.maybeDelivered
        switch delivery.status {
        case .sent(let serviceID):
            await senders.delivered(through: name)
            result.service_id = serviceID
            return result.finished(.sent, reason: nil)
        case .tokenInvalid(let reason, let policy, let observedAt):
            result.action = await applyVerdict(
                reason: reason, policy: policy, observedAt: observedAt, provider: name, context: context)
            return result.finished(.tokenInvalid, reason: reason)
        case .rejected(let reason):
            return result.finished(.rejected, reason: reason)
        case .authFailed(let reason):
            await senders.setUnhealthy(name, reason: reason)
            return result.finished(.failed, reason: reason)
        case .failed(let reason):
            return result.finished(.failed, reason: reason)
        case .expired(let reason):
            return result.finished(.expired, reason: reason)
        }
    }

    /// The registry's action, or nil when the store could not be reached (the push service's
    /// verdict is still reported; the token is dealt with by the next push or feedback).
    private func applyVerdict(
        reason: String, policy: FeedbackPolicy, observedAt: Date, provider: ProviderName, context: Engine
    ) async -> FeedbackAction? {
        do {
            let action = try await context.devices.applyFeedback(
                provider: provider, token: device.token.value, policy: policy, reason: reason, reportedAt: observedAt)
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
