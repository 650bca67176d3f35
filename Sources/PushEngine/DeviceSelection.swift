import RegistryCore
import Store

/// Which devices a push or a call event goes to, and their providers: shared by `POST /v1/push`,
/// call events and push jobs, so all list devices alike.
extension Engine {
    /// The targets' providers by name, from a snapshot at most `providerSnapshotAge` old: another
    /// instance's change to a provider reaches this one's pushes within that time, this
    /// instance's own at once. A device whose provider the snapshot lacks means the provider is
    /// newer than the snapshot (a device cannot outlive its provider), so the list is read again.
    package func providers(of targets: [Device]) async throws -> [ProviderName: StoredProvider] {
        func byName(_ list: [StoredProvider]) -> [ProviderName: StoredProvider] {
            Dictionary(list.map { ($0.provider.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        var snapshot = byName(try await providers.all(readWithin: Self.providerSnapshotAge))
        if targets.contains(where: { snapshot[$0.provider] == nil }) {
            snapshot = byName(try await providers.all(readWithin: .zero))
        }
        await dropDeletedSenders(absentFrom: snapshot)
        return snapshot
    }

    /// A provider another instance (or the CLI) deleted is noticed here, where its sender would be
    /// looked up: a provider with a sender that the list lacks loses it once the database confirms
    /// it is gone (the list may merely be older than the provider).
    private func dropDeletedSenders(absentFrom present: [ProviderName: StoredProvider]) async {
        for name in await pushSenders.names(absentFrom: present) {
            do {
                _ = try await providers.provider(named: name)
            } catch RegistryError.notFound {
                await pushSenders.remove(name)
            } catch {
                // The database did not answer: the next push asks again.
            }
        }
    }

    static let providerSnapshotAge: Duration = .seconds(1)

    /// Every device of `users` that `keep` keeps, disabled ones included (they are listed as
    /// skipped), in a stable order: users as given, then provider, type and token. Shared by the
    /// push and call-event routes, so both list devices alike. The users are read at once; a
    /// single one in this task, as `send` does. From the primary: who gets a push is decided on
    /// what is committed, never on a replica that may not have replayed a registration yet.
    package func targetDevices(of users: [UserID], where keep: @escaping @Sendable (Device) -> Bool) async throws
        -> [Device]
    {
        func targets(among devices: [Device]) -> [Device] {
            devices.filter(keep).sorted {
                ($0.provider.value, $0.type.rawValue, $0.token.value) < (
                    $1.provider.value, $1.type.rawValue, $1.token.value
                )
            }
        }
        if users.count == 1 {
            return targets(among: try await devices.devices(of: users[0], includeDisabled: true, strong: true))
        }
        return try await withThrowingTaskGroup(of: (Int, [Device]).self) { group in
            for (index, user) in users.enumerated() {
                group.addTask { [devices] in
                    (index, try await devices.devices(of: user, includeDisabled: true, strong: true))
                }
            }
            var byUser = [[Device]](repeating: [], count: users.count)
            for try await (index, devices) in group { byUser[index] = targets(among: devices) }
            return byUser.flatMap { $0 }
        }
    }
}
