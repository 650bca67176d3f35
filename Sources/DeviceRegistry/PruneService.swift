import API
import Foundation
import Logging
import ServiceLifecycle
import Store

/// `serve --prune-every`: deletes stale devices on a schedule, counting them in the metrics;
/// and, whether or not devices are pruned, finished push jobs past their retention.
struct PruneService: Service {
    struct Schedule: Sendable {
        var every: TimeInterval
        /// Nil: devices are not pruned (no `--prune-every`).
        var notSeenFor: TimeInterval?
    }

    let devices: DeviceStore
    let schedule: Schedule
    let pushJobs: PushJobRetention
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(schedule.every)) }
            } catch {
                return
            }
            await prunePushJobs()
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
}
