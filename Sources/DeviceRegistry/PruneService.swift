import Foundation
import Logging
import PushEngine
import ServiceLifecycle
import Store

/// `serve`'s scheduled pruning: stale devices with `--prune-every` (counted in the metrics); and,
/// whether or not devices are pruned, call events and finished push jobs past their retention.
struct PruneService: Service {
    struct Schedule: Sendable {
        var every: TimeInterval
        /// Nil: devices are not pruned (no `--prune-every`).
        var notSeenFor: TimeInterval?
        /// How long a call event's history is kept (`GET /v1/call-events/{id}`).
        var callEventsKeptFor: TimeInterval
    }

    let devices: DeviceStore
    let callEvents: CallEventStore
    let schedule: Schedule
    let pushJobs: PushJobRetention
    let logger: Logger

    func run() async throws {
        // Day partitions for the week ahead before the first insert needs them; each prune
        // below keeps them a week ahead.
        await addPartitions()
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(schedule.every)) }
            } catch {
                return
            }
            await prunePushJobs()
            await pruneCallEvents()
            guard let notSeenFor = schedule.notSeenFor else { continue }
            do {
                let deleted = try await devices.prune(notSeenSince: Date().addingTimeInterval(-notSeenFor))
                RegistryEvents().pruned(deleted)
                logger.info("pruned stale devices", metadata: ["deleted": "\(deleted)"])
            } catch {
                logger.warning("prune failed; will try again next time", metadata: ["error": "\(error)"])
            }
        }
    }

    private func addPartitions() async {
        do {
            try await callEvents.addPartitions()
            try await pushJobs.store.addPartitions()
        } catch {
            logger.warning("creating day partitions failed; will try again next time", metadata: ["error": "\(error)"])
        }
    }

    private func pruneCallEvents() async {
        do {
            let deleted = try await callEvents.prune(
                createdBefore: Date().addingTimeInterval(-schedule.callEventsKeptFor))
            logger.info("pruned old call events", metadata: ["deleted": "\(deleted)"])
        } catch {
            logger.warning("call event prune failed; will try again next time", metadata: ["error": "\(error)"])
        }
    }
}
