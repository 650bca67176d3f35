import Foundation
import PushRules
import RegistryCore

/// Turns a call event into the push for one device, in the format its provider's app parses:
/// `DeliveryRule` plans whether and how it is sent, then the payload is rendered. Pure apart
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
    /// `FCMMessage.byteCount`).
    public func compose(_ event: CallEvent, for target: PushTarget, now: Date) throws -> ComposedPush {
        let plan = DeliveryRule.decide(event, tokenType: target.tokenType, bundleID: target.bundleID, now: now)
        guard let kind = plan.kind else { return ComposedPush(plan: plan, payload: nil) }
        let context = RenderContext(event: event, target: target, now: now, templates: templates)
        let composed = ComposedPush(plan: plan, payload: try render(kind, context))
        let size = composed.fcmMessage?.byteCount ?? composed.payload?.bytes.count ?? 0
        guard size <= kind.maxPayloadBytes else {
            let reason =
                "the \(format.rawValue) payload is \(size) bytes; a \(kind.rawValue) push takes at most "
                + "\(kind.maxPayloadBytes) (shorten the caller's fields or the call's metadata)"
            return ComposedPush(plan: .skipped(reason: reason), payload: nil)
        }
        return composed
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
