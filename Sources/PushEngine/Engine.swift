import Logging
import PushDelivery
import ServiceLifecycle
import Store

/// The push application layer: which devices a push or a call event goes to, sending with
/// results and registry feedback, call events (claim, send, record) and push jobs (intake,
/// workers, leases). Knows nothing of HTTP: the API turns requests into calls on it.
///
/// A service: `run` works off push jobs (when the settings say this instance does) until graceful
/// shutdown, then waits for every task the engine started that is still running (rings answered
/// early, senders being replaced, credential renewals: `EngineTasks`) and closes the push
/// connections. Started before the listeners, it stops after them, so no request can start a push
/// on a closed sender.
public final class Engine: Service, Sendable {
    let devices: DeviceStore
    let providers: ProviderStore
    let credentials: ProviderCredentialStore
    let callEvents: CallEventStore
    let pushSenders: PushSenders
    let callComposers: CallComposerSetup
    let pushJobs: PushJobs
    let tasks: EngineTasks
    let ringsInFlight = RingsInFlight()
    package let events = RegistryEvents()
    let providerIndex = ProviderIndex()
    let logger: Logger

    /// `senders` makes each provider's push sender, once per process.
    public init(
        devices: DeviceStore, providers: ProviderStore, credentials: ProviderCredentialStore,
        callEvents: CallEventStore, pushJobs: PushJobStore, senders: PushSenderFactory, settings: PushJobSettings,
        logger: Logger
    ) {
        self.devices = devices
        self.providers = providers
        self.credentials = credentials
        self.callEvents = callEvents
        let tasks = EngineTasks()
        self.tasks = tasks
        pushSenders = PushSenders(factory: senders, credentialStore: credentials, tasks: tasks, logger: logger)
        callComposers = CallComposerSetup(payloadKeys: credentials.payloadKeys)
        self.pushJobs = PushJobs(store: pushJobs, settings: settings)
        self.logger = logger
    }

    /// Until graceful shutdown (or cancellation), then drains.
    public func run() async {
        await withDiscardingTaskGroup { group in
            if pushJobs.settings.runsWorkers { group.addTask { await PushJobWorker(context: self).run() } }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        // In a task of its own, which a cancelled `run` does not cancel: a ring still sending
        // gets its answers and records them, and the senders close their connections cleanly.
        await Task { await drain() }.value
    }

    private func drain() async {
        let running = tasks.count
        if running > 0 {
            logger.info(
                "waiting for the push tasks still running (call events, credential renewals)",
                metadata: ["count": "\(running)"])
        }
        await tasks.waitUntilIdle()
        await pushSenders.shutdown()
    }
}
