import NIOConcurrencyHelpers
import RegistryCore
import Store

/// Which devices a push or a call event goes to, and their providers: shared by `POST /v1/push`,
/// call events and push jobs, so all list devices alike.
extension Engine {
    /// The targets' providers by name, from a snapshot at most `providerSnapshotAge` old: another
    /// instance's change to a provider reaches this one's pushes within that time, this
    /// instance's own at once. A device whose provider the snapshot lacks means the provider is
    /// newer than the snapshot (a device cannot outlive its provider), so the list is read again.
    /// The dictionary and the check for deleted providers' senders are made once per snapshot
    /// (`ProviderIndex`), not once per push.
    package func providers(of targets: [Device]) async throws -> [ProviderName: StoredProvider] {
        var snapshot = try await indexedProviders(readWithin: Self.providerSnapshotAge)
        if targets.contains(where: { snapshot[$0.provider] == nil }) {
            snapshot = try await indexedProviders(readWithin: .zero)
        }
        return snapshot
    }

    private func indexedProviders(readWithin maximumAge: Duration) async throws -> [ProviderName: StoredProvider] {
        let list = try await providers.all(readWithin: maximumAge)
        if let indexed = providerIndex.byName(of: list) { return indexed }
        let byName = Dictionary(list.map { ($0.provider.name, $0) }, uniquingKeysWith: { first, _ in first })
        if await dropDeletedSenders(absentFrom: byName) { providerIndex.keep(byName, of: list) }
        return byName
    }

    /// A provider another instance (or the CLI) deleted is noticed here, where its sender would be
    /// looked up: a provider with a sender that the list lacks loses it once the database confirms
    /// it is gone (the list may merely be older than the provider). False when the database did
    /// not answer: the next push asks again.
    private func dropDeletedSenders(absentFrom present: [ProviderName: StoredProvider]) async -> Bool {
        var answered = true
        for name in await pushSenders.names(absentFrom: present) {
            do {
                _ = try await providers.provider(named: name)
            } catch RegistryError.notFound {
                await pushSenders.remove(name)
            } catch {
                answered = false
            }
        }
        return answered
    }

    static let providerSnapshotAge: Duration = .seconds(1)

    /// Every device of `users` that `keep` keeps, disabled ones included (they are listed as
    /// skipped), in a stable order: users as given, then provider, type and token. Shared by the
    /// push and call-event routes, so both list devices alike. The users are read at once; a
    /// single one in this task, as `send` does. From the primary: who gets a push is decided on
    /// what is committed, never on a replica that may not have replayed a registration yet.
    package func targetDevices(of users: [UserID], where keep: (Device) -> Bool) async throws -> [Device] {
        func targets(among devices: [Device]) -> [Device] {
            // Usually every device is kept (one VoIP device of a call push): no filtered copy then.
            Self.inTargetOrder(devices.allSatisfy(keep) ? devices : devices.filter(keep))
        }
        if users.count == 1 {
            return targets(among: try await devices.pushTargets(of: users[0]))
        }
        return try await withThrowingTaskGroup(of: (Int, [Device]).self) { group in
            for (index, user) in users.enumerated() {
                group.addTask { [devices] in
                    (index, try await devices.pushTargets(of: user))
                }
            }
            var byUser = [[Device]](repeating: [], count: users.count)
            for try await (index, devices) in group { byUser[index] = targets(among: devices) }
            return byUser.flatMap { $0 }
        }
    }
}

extension Engine {
    /// Every device of `users`, read at once in no particular order
    /// (`CallEventStore.claimReadingDevices`), listed as `targetDevices` lists them: users as
    /// given, then provider, type and token.
    static func targets(of users: [UserID], among devices: [Device]) -> [Device] {
        if users.count == 1 { return inTargetOrder(devices) }
        let byUser = Dictionary(grouping: devices, by: \.userID)
        return users.flatMap { inTargetOrder(byUser[$0] ?? []) }
    }

    /// One user's devices by provider, type and token.
    private static func inTargetOrder(_ devices: [Device]) -> [Device] {
        guard devices.count > 1 else { return devices }
        return devices.sorted {
            ($0.provider.value, $0.type.rawValue, $0.token.value) < (
                $1.provider.value, $1.type.rawValue, $1.token.value
            )
        }
    }
}

/// The provider list last turned into a dictionary by name, with that dictionary: the list comes
/// from `ProviderStore`'s snapshot, the same array until the snapshot is read again, so at
/// thousands of pushes a second the dictionary is built (and the senders checked against it) once
/// per snapshot instead of once per push.
final class ProviderIndex: Sendable {
    private struct Indexed: Sendable {
        let list: [StoredProvider]
        let byName: [ProviderName: StoredProvider]
    }

    private let last = NIOLockedValueBox<Indexed?>(nil)

    /// The dictionary of `list` when `list` is the array last indexed (the same storage, which
    /// the index keeps alive, so the same providers).
    func byName(of list: [StoredProvider]) -> [ProviderName: StoredProvider]? {
        last.withLockedValue { last in
            guard let last, Self.isSameStorage(last.list, list) else { return nil }
            return last.byName
        }
    }

    func keep(_ byName: [ProviderName: StoredProvider], of list: [StoredProvider]) {
        last.withLockedValue { $0 = Indexed(list: list, byName: byName) }
    }

    private static func isSameStorage(_ a: [StoredProvider], _ b: [StoredProvider]) -> Bool {
        // An empty list may share the empty-array storage with another: never taken as the same.
        !a.isEmpty && a.count == b.count
            && a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }
    }
}
