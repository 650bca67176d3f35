import API
import Foundation
import Logging
import ServiceLifecycle
import Store

/// `serve --prune-every`: deletes stale devices and old call events on a schedule, counting the
/// devices in the metrics.
struct PruneService: Service {
    struct Schedule: Sendable {
        var every: TimeInterval
        var notSeenFor: TimeInterval
        /// How long a call event's history is kept (`GET /v1/call-events/{id}`).
        var callEventsKeptFor: TimeInterval
    }

    let devices: DeviceStore
    let callEvents: CallEventStore
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
            do {
                let deleted = try await callEvents.prune(
                    createdBefore: Date().addingTimeInterval(-schedule.callEventsKeptFor))
                logger.info("pruned old call events", metadata: ["deleted": "\(deleted)"])
            } catch {
                logger.warning("call event prune failed; will try again next time", metadata: ["error": "\(error)"])
            }
        }
    }
}
