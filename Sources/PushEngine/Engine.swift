import Logging
import PushDelivery
import Store

/// The push application layer: which devices a push or a call event goes to, sending with
/// results and registry feedback, call events (claim, send, record) and push jobs (intake,
/// workers, leases). Knows nothing of HTTP: the API turns requests into calls on it.
package struct Engine: Sendable {
    let devices: DeviceStore
    let providers: ProviderStore
    let credentialStore: ProviderCredentialStore
    let callEvents: CallEventStore
    package let pushSenders: PushSenders
    let callComposers: CallComposerSetup
    package let pushJobs: PushJobs
    let callEventsInFlight: CallEventsInFlight
    package let events: RegistryEvents
    package let logger: Logger

    /// The kind a call event's push job is stored under (`CallEventJobIntake`).
    package static let callEventJobKind = "call_event"

    /// `senders` makes each provider's push sender, once per process.
    package init(
        devices: DeviceStore, providers: ProviderStore, credentials: ProviderCredentialStore,
        callEvents: CallEventStore, pushJobs: PushJobStore, senders: PushSenderFactory, settings: PushJobSettings,
        logger: Logger
    ) {
        self.devices = devices
        self.providers = providers
        credentialStore = credentials
        self.callEvents = callEvents
        pushSenders = PushSenders(factory: senders, credentialStore: credentials, logger: logger)
        callComposers = CallComposerSetup(payloadKeys: credentials.payloadKeys)
        self.pushJobs = PushJobs(store: pushJobs, settings: settings)
        callEventsInFlight = CallEventsInFlight()
        events = RegistryEvents()
        self.logger = logger
    }

    /// Works off push jobs until cancelled (see `PushJobWorker`); returns at once when the
    /// settings say this instance runs no workers.
    package func runPushJobWorkers() async {
        guard pushJobs.settings.runsWorkers else { return }
        await PushJobWorker(context: self).run()
    }

    /// Lets the call events still sending finish and record their results (each by its deadline),
    /// then closes every push connection; call once serving has stopped.
    package func shutdown() async {
        let sending = callEventsInFlight.count
        if sending > 0 {
            logger.info("waiting for call events still sending", metadata: ["count": "\(sending)"])
        }
        await callEventsInFlight.waitUntilIdle()
        await pushSenders.shutdown()
    }
}
