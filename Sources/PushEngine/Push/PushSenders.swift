import Logging
import Metrics
import NIOConcurrencyHelpers
import PushDelivery
import RegistryCore
import Store

/// One sender per provider for the life of the process, built from the provider's stored
/// credentials on first use and rebuilt only when its credentials, endpoint or topic change; and
/// which providers the push services currently refuse (`InvalidProviderToken`, FCM 401/403).
/// Unhealthy is reported, never a reason to stop trying: the key may be fixed at Apple's or
/// Google's end, and the next accepted push clears it. Each provider's budget of in-flight
/// pushes (`PushBudget`) lives here too, for the life of the process, so a sender rebuilt for
/// new credentials shares it with the pushes the old one still carries.
actor PushSenders {
    enum Sender: Sendable {
        case apns(APNsSender)
        case fcm(FCMSender)

        func isSame(as other: Sender) -> Bool {
            switch (self, other) {
            case (.apns(let a), .apns(let b)): a === b
            case (.fcm(let a), .fcm(let b)): a === b
            default: false
            }
        }
    }

    /// Why a provider cannot send at all; the reason a push result carries.
    enum Unusable: Error {
        case noCredentials
        case credentialsUnreadable
    }

    /// What a sender was built from: a change in any of these builds a new one.
    private struct Version: Equatable, Sendable {
        let keyFingerprint: String
        let teamID: String?
        let keyID: String?
        let endpoint: String?
        let topic: String?

        init?(_ stored: StoredProvider) {
            guard let facts = stored.credentials else { return nil }
            keyFingerprint = facts.keyFingerprint
            teamID = facts.teamID
            keyID = facts.keyID
            endpoint = stored.endpoint
            topic = stored.provider.topic
        }
    }

    private struct Entry: Sendable {
        let version: Version
        let sender: Sender
        /// How much of the sender's running totals the `_total` counters already hold.
        var counted = Counted()
    }

    private struct Counted: Sendable {
        var connections = 0
        var credentials = 0
    }

    private let factory: PushSenderFactory
    /// The APNs client certificates' ends, for `/readyz` and the expiry gauge.
    nonisolated var certificateExpiries: APNsCertificateExpiries { factory.certificateExpiries }
    private let credentialStore: ProviderCredentialStore
    private let tasks: EngineTasks
    private let logger: Logger
    private var entries: [ProviderName: Entry] = [:] {
        didSet { published.withLockedValue { $0 = entries } }
    }
    /// `entries` and the names in `unhealthy`, readable without the actor: every push asks for
    /// its sender and reports a success, and two hops on and off the actor for each cost more
    /// than the lookups.
    private let published = NIOLockedValueBox<[ProviderName: Entry]>([:])
    private let publishedUnhealthy = NIOLockedValueBox<Set<ProviderName>>([])
    private var unhealthy: [ProviderName: String] = [:] {
        didSet { publishedUnhealthy.withLockedValue { $0 = Set(unhealthy.keys) } }
    }
    private var budgets: [ProviderName: PushBudget] = [:]

    init(factory: PushSenderFactory, credentialStore: ProviderCredentialStore, tasks: EngineTasks, logger: Logger) {
        self.factory = factory
        self.credentialStore = credentialStore
        self.tasks = tasks
        self.logger = logger
    }

    nonisolated func sender(for stored: StoredProvider) async throws(Unusable) -> Sender {
        guard let version = Version(stored) else { throw .noCredentials }
        if let entry = published.withLockedValue({ $0[stored.provider.name] }), entry.version == version {
            return entry.sender
        }
        return try await sender(for: stored, version: version)
    }

    private func sender(for stored: StoredProvider, version: Version) async throws(Unusable) -> Sender {
        let name = stored.provider.name
        if let entry = entries[name], entry.version == version { return entry.sender }
        let sender = try await build(stored)
        // Another request may have built one meanwhile: keep the first, so one connection pool serves both.
        if let entry = entries[name], entry.version == version {
            await Self.shutdown(sender)
            return entry.sender
        }
        if let old = entries[name] { retire(old, of: name, deleted: false) }
        entries[name] = Entry(version: version, sender: sender)
        setHealthy(name)
        return sender
    }

    /// Provider `name` was deleted: its sender closes, once the pushes it carries have finished.
    func remove(_ name: ProviderName) {
        unhealthy.removeValue(forKey: name)
        factory.certificateExpiries.forget(name.value)
        if let old = entries.removeValue(forKey: name) { retire(old, of: name, deleted: true) }
    }

    /// The providers with a sender here that `present`, a provider list, lacks: deleted, or newer
    /// than the list. Asked at every push, so it only walks the few providers with a sender.
    func names(absentFrom present: [ProviderName: StoredProvider]) -> [ProviderName] {
        entries.keys.filter { present[$0] == nil }
    }

    /// Shuts a replaced or deleted provider's sender down without making the caller wait: its
    /// in-flight pushes finish first (`shutdown` grants them their attempt timeout). The engine
    /// owns the task, so its shutdown waits for it.
    private func retire(_ old: Entry, of name: ProviderName, deleted: Bool) {
        tasks.start {
            // Its last connections and tokens count too: the counters never go back.
            Self.count(await Self.statistics(of: old.sender), since: old.counted, provider: name.value)
            await Self.shutdown(old.sender)
            // A replacement's own figures take over at the next scrape; a deleted provider has none.
            if deleted { Self.recordIdle(name.value) }
        }
    }

    /// Provider `name`'s budget of in-flight pushes, which every sender of it takes its slots
    /// from: background jobs send in its `bulk` lane, `POST /v1/push` in `interactive`.
    func budget(for name: ProviderName) -> PushBudget {
        if let budget = budgets[name] { return budget }
        let budget = factory.makeBudget()
        budgets[name] = budget
        return budget
    }

    private func build(_ stored: StoredProvider) async throws(Unusable) -> Sender {
        let name = stored.provider.name
        let credentials: ProviderCredentials
        do {
            guard let secret = try await credentialStore.secret(of: name) else { throw Unusable.noCredentials }
            credentials = try ProviderCredentials.parse(
                try JSONParser.parse(String(decoding: secret, as: UTF8.self)), service: stored.provider.service)
        } catch Unusable.noCredentials {
            throw .noCredentials
        } catch {
            // Listed in /readyz and logged once, not at every push. The reason names a missing
            // master key id at most, never the secret.
            switch error {
            case RegistryError.unavailable: break  // the database, not the credentials
            case RegistryError.internal(let reason), RegistryError.conflict(let reason):
                setUnhealthy(name, reason: reason)
            default: setUnhealthy(name, reason: "the credentials cannot be read: \(error)")
            }
            throw .credentialsUnreadable
        }
        let endpoint = stored.endpoint.flatMap { try? PushEndpoint($0) }
        factory.certificateExpiries.forget(name.value)  // Recorded again if it still has a certificate.
        switch credentials {
        case .apnsCertificate(let certificate):
            do {
                return .apns(
                    try factory.apns(
                        certificate: certificate, provider: name.value, bundleID: stored.provider.topic ?? "",
                        endpoint: endpoint, budget: budget(for: name)))
            } catch {
                setUnhealthy(name, reason: "the APNs client certificate cannot be used: \(error)")
                throw .credentialsUnreadable
            }
        case .apns(let apns):
            return .apns(
                factory.apns(
                    credentials: apns, bundleID: stored.provider.topic ?? "", endpoint: endpoint,
                    budget: budget(for: name), tasks: tasks))
        case .fcm(let account):
            return .fcm(factory.fcm(account: account, endpoint: endpoint, budget: budget(for: name), tasks: tasks))
        }
    }

    func setUnhealthy(_ name: ProviderName, reason: String) {
        if unhealthy.updateValue(reason, forKey: name) == nil {
            logger.warning(
                "the provider cannot send: its credentials are refused or cannot be opened",
                metadata: ["provider": "\(name.value)", "reason": "\(reason)"])
        }
        Gauge(label: "push_provider_unhealthy", dimensions: [("provider", name.value)]).record(1)
    }

    /// Every per-provider series whose only label is the provider, at 0 (or unhealthy as known),
    /// so that dashboards and alerts see a provider before its first push: called for every
    /// provider at start and for one created here later (other instances: at their next start
    /// or first push to it).
    func introduce(_ name: ProviderName) {
        Gauge(label: "push_provider_unhealthy", dimensions: [("provider", name.value)])
            .record(unhealthy[name] == nil ? 0 : 1)
        if entries[name] == nil { Self.recordIdle(name.value) }
        for label in [
            "push_connections_opened_total", "push_credentials_issued_total", "push_retries_total",
            "push_expired_before_send_total",
        ] {
            Counter(label: label, dimensions: [("provider", name.value)]).increment(by: 0)
        }
    }

    /// A push through `name` was accepted: `setHealthy`, entering the actor only when `name` is
    /// marked unhealthy (a healthy provider's gauge is 0 already).
    nonisolated func delivered(through name: ProviderName) async {
        guard publishedUnhealthy.withLockedValue({ $0.contains(name) }) else { return }
        await setHealthy(name)
    }

    /// Recorded as 0, not removed: the series stays.
    func setHealthy(_ name: ProviderName) {
        unhealthy.removeValue(forKey: name)
        Gauge(label: "push_provider_unhealthy", dimensions: [("provider", name.value)]).record(0)
    }

    /// Records, for `/metrics`, which calls it before answering (so the gauges fall as well as
    /// rise), per provider: the connections its senders opened (`push_connections_opened_total`),
    /// hold open now (`push_open_connections`) and the streams in use on them
    /// (`push_open_streams`); the provider tokens they signed or access tokens they obtained
    /// (`push_credentials_issued_total`); and its pushes in flight and waiting for a slot of its
    /// budget (`push_in_flight`, `push_waiting`).
    func recordStatistics() async {
        for name in entries.keys {
            guard let sender = entries[name]?.sender else { continue }
            let statistics = await Self.statistics(of: sender)
            // Another scrape may have counted meanwhile, or the sender been replaced: count from
            // what the entry holds now, and only for the same sender.
            guard let entry = entries[name], entry.sender.isSame(as: sender) else { continue }
            entries[name]?.counted = Self.count(statistics, since: entry.counted, provider: name.value)
            Gauge(label: "push_open_connections", dimensions: [("provider", name.value)])
                .record(statistics.openConnections)
            Gauge(label: "push_open_streams", dimensions: [("provider", name.value)]).record(statistics.openStreams)
            if let budget = budgets[name] {
                Gauge(label: "push_in_flight", dimensions: [("provider", name.value)]).record(budget.inFlight)
                Gauge(label: "push_waiting", dimensions: [("provider", name.value)]).record(budget.waiting)
            }
        }
    }

    /// Providers whose credentials the push service refused, with its reason, by name.
    var unhealthyProviders: [(name: String, reason: String)] {
        unhealthy.map { ($0.key.value, $0.value) }.sorted { $0.name < $1.name }
    }

    func shutdown() async {
        for entry in entries.values { await Self.shutdown(entry.sender) }
        entries = [:]
    }

    private static func statistics(of sender: Sender) async -> SenderStatistics {
        switch sender {
        case .apns(let sender): await sender.statistics
        case .fcm(let sender): await sender.statistics
        }
    }

    /// Adds what a sender did since `counted` to the counters; returns the new mark.
    @discardableResult
    private static func count(_ statistics: SenderStatistics, since counted: Counted, provider: String) -> Counted {
        Counter(label: "push_connections_opened_total", dimensions: [("provider", provider)])
            .increment(by: max(0, statistics.connectionsOpened - counted.connections))
        Counter(label: "push_credentials_issued_total", dimensions: [("provider", provider)])
            .increment(by: max(0, statistics.credentialsIssued - counted.credentials))
        return Counted(connections: statistics.connectionsOpened, credentials: statistics.credentialsIssued)
    }

    /// Every per-provider gauge at 0: a provider without a sender has no connections, streams or
    /// pushes.
    private static func recordIdle(_ provider: String) {
        for label in ["push_open_connections", "push_open_streams", "push_in_flight", "push_waiting"] {
            Gauge(label: label, dimensions: [("provider", provider)]).record(0)
        }
    }

    private static func shutdown(_ sender: Sender) async {
        switch sender {
        case .apns(let sender): await sender.shutdown()
        case .fcm(let sender): await sender.shutdown()
        }
    }
}
