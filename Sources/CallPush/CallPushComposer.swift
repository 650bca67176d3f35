import Foundation
import PushRules
import RegistryCore

/// Turns a call event into the push for one device, in the format its provider's app parses:
/// `DeliveryRule` decides whether and how it is sent, then the payload is rendered. Pure apart
/// from the sealer's random IV.
public struct CallPushComposer: Sendable {
    public let format: CallFormat
    public let templates: NotificationTemplates
    public let sealer: any PayloadSealer

    public init(format: CallFormat, templates: NotificationTemplates = .none, sealer: any PayloadSealer) {
        self.format = format
        self.templates = templates
        self.sealer = sealer
    }

    /// Throws only when sealing or compressing a SignalWire invite fails. A payload larger than
    /// its push service takes is skipped here, with its size in the reason, rather than refused
    /// by APNs or FCM later: measured on what is sent (an FCM message with its `android` block,
    /// `PayloadLimit.byteCount(ofFCMMessage:)`).
    public func compose(_ event: CallEvent, for target: PushTarget, now: Date) throws -> ComposedPush {
        let decision = DeliveryRule.decide(event, tokenType: target.tokenType, bundleID: target.bundleID, now: now)
        guard let kind = decision.kind else { return ComposedPush(decision: decision, payload: nil) }
        let context = RenderContext(event: event, target: target, now: now, templates: templates)
        let payload = try render(kind, context)
        let size: Int
        switch (decision, payload) {
        case (.fcm(let plan), .fcm(let content)):
            size = PayloadLimit.byteCount(ofFCMMessage: content.message(plan: plan))
        default: size = payload.bytes.count
        }
        guard size <= kind.maxPayloadBytes else {
            let reason =
                "the \(format.rawValue) payload is \(size) bytes; a \(kind.rawValue) push takes at most "
                + "\(kind.maxPayloadBytes) (shorten the caller's fields or the call's metadata)"
            return ComposedPush(decision: .skipped(reason: reason), payload: nil)
        }
        return ComposedPush(decision: decision, payload: payload)
    }

    private func render(_ kind: PushKind, _ context: RenderContext) throws -> PushPayload {
        let service = context.target.tokenType.service
        switch (format, context.event.type.isRinging) {
        case (.flexisip, _):
            return FlexisipPayload.render(kind, context)
        case (.stream, _), (_, false):
            return StreamPayload.render(kind, context)
        case (.dialstack, true):
            return DialStackPayload.render(service, context)
        case (.reactNative, true):
            return ReactNativePayload.render(service, context)
        case (.signalwire, true):
            return try SignalWirePayload.render(service, context, sealer: sealer)
        }
    }
}
