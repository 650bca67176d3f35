import API
import Foundation
import Logging
import ServiceLifecycle
import Store

/// `serve --prune-every`: deletes stale devices on a schedule, counting them in the metrics.
struct PruneService: Service {
    struct Schedule: Sendable {
        var every: TimeInterval
        var notSeenFor: TimeInterval
    }

    let devices: DeviceStore
    let schedule: Schedule
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(schedule.every)) }
            } catch {
                return
            }
            do {
                let deleted = try await devices.prune(notSeenSince: Date().addingTimeInterval(-schedule.notSeenFor))
                RegistryEvents().pruned(deleted)
                logger.info("pruned stale devices", metadata: ["deleted": "\(deleted)"])
            } catch {
                logger.warning("prune failed; will try again next time", metadata: ["error": "\(error)"])
            }
        }
    }
}
