import Foundation
import RegistryCore

/// Everything a payload is rendered from: the event, the device, and the moment of sending.
struct RenderContext {
    let event: CallEvent
    let target: PushTarget
    let now: Date
    let templates: NotificationTemplates

    /// Whole seconds left of the event's ttl, rounded up: Flexisip's `pn_ttl`.
    var remainingSeconds: Int64 { max(0, Int64(event.remaining(at: now).rounded(.up))) }

    var caller: Caller { event.caller }
}
