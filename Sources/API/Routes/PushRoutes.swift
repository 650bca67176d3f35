import Foundation
import HTTPServer
import PushRules
import RegistryCore
import Store

/// `POST /v1/push` (`push:send`): sends to every device of the users named, and answers with
/// each device's outcome once every device has one or the deadline has passed. A body with more
/// than 1,000 users or `"async": true`, or an NDJSON one, becomes a push job instead (202, see
/// `PushJobIntake`).
extension APIContext {
    func addPushRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/push", body: .jsonOrStreamed(streamedTypes: JobLines.contentTypes),
            bodyLimit: PushJobIntake.jsonBodyLimit,
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                if let stream = request.bodyStream { return try await PushJobIntake(jobs: pushJobs).receive(stream) }
                let body = try RequestReading.json(request)
                if PushJobRequest.isJob(body) {
                    return try await PushJobIntake(jobs: pushJobs).receive(try PushJobRequest.parse(body))
                }
                let now = Date()
                let push = try PushRequest.parse(PushJobRequest.synchronous(body), now: now)
                try VoIPPushRule.check(push, now: now)
                let deadline = ContinuousClock.now + push.deadline
                let targets = try await targetDevices(of: push.userIDs) {
                    push.targets(type: $0.type, provider: $0.provider)
                }
                let providers = try await providers(of: targets)
                try Self.checkPayloadFits(push, targets: targets)
                let pushes = targets.map {
                    DevicePush(device: $0, provider: providers[$0.provider], request: push, deadline: deadline)
                }
                let results = await send(pushes)
                return .json(PushResultsBody(results: results))
            })
    }

    /// Every device's result, in order. The devices are sent to at once; a single one (the
    /// common call push) in this task, without a child task to create and hand over to.
    private func send(_ pushes: [DevicePush]) async -> [PushResult] {
        if pushes.count == 1 { return [await pushes[0].run(context: self, senders: pushSenders)] }
        return await withTaskGroup(of: (Int, PushResult).self) { group in
            for (index, devicePush) in pushes.enumerated() {
                group.addTask { (index, await devicePush.run(context: self, senders: pushSenders)) }
            }
            var results = [PushResult?](repeating: nil, count: pushes.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// The targets' providers by name, from a snapshot at most `providerSnapshotAge` old: another
    /// instance's change to a provider reaches this one's pushes within that time, this
    /// instance's own at once. A device whose provider the snapshot lacks means the provider is
    /// newer than the snapshot (a device cannot outlive its provider), so the list is read again.
    func providers(of targets: [Device]) async throws -> [ProviderName: StoredProvider] {
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
    func targetDevices(of users: [UserID], where keep: @escaping @Sendable (Device) -> Bool) async throws
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
                group.addTask { (index, try await devices.devices(of: user, includeDisabled: true, strong: true)) }
            }
            var byUser = [[Device]](repeating: [], count: users.count)
            for try await (index, devices) in group { byUser[index] = targets(among: devices) }
            return byUser.flatMap { $0 }
        }
    }

    /// A section over the limit of every device it would go to is refused before anything is
    /// sent; one that fits some of them goes to those, and is `rejected` for the others.
    private static func checkPayloadFits(_ push: PushRequest, targets: [Device]) throws {
        var errors: [ValidationError] = []
        if let apns = push.apns {
            // Only the tokens the push type suits are sent to; the others are skipped whatever the size.
            let types = Set(targets.map(\.type).filter { apns.options.pushType.suits($0) })
            if !types.isEmpty, !types.contains(where: { PayloadLimit.fits(apns.payload.count, $0) }) {
                let limit = types.map(PayloadLimit.maximumBytes).max() ?? 0
                errors.append(
                    ValidationError(
                        field: "apns.payload", message: "is \(apns.payload.count) bytes; at most \(limit) may be sent"))
            }
        }
        if let message = push.fcmMessage, targets.contains(where: { $0.type == .fcm }) {
            let size = PushRequest.compactJSON(.object(message)).count
            if !PayloadLimit.fits(size, .fcm) {
                errors.append(
                    ValidationError(
                        field: "fcm.message",
                        message: "is \(size) bytes; at most \(PayloadLimit.maximumBytes(for: .fcm)) may be sent"))
            }
        }
        if !errors.isEmpty { throw ValidationErrors(errors) }
    }
}
