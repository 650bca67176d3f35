import ArgumentParser
import Foundation
import RegistryCore
import Store

struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract:
            "Delete devices not seen for a while, and call events and finished push jobs older than they are kept (whole days at once), and print how many."
    )

    /// A call event's history is kept a week: long enough for "why didn't my phone ring on
    /// Friday?" on a Monday; its id dedupes for 24 h of that (`CallEventStore.dedupeWindow`).
    static let callEventsKeptFor = "7d"

    @Option(help: "Age past which a device is stale, e.g. 270d (Firebase's inactivity limit), 12h, 90m.")
    var notSeenFor: String = "270d"
    @Option(help: "Age past which a call event's history is deleted, e.g. 7d, 48h.")
    var callEventsKeptFor: String = PruneCommand.callEventsKeptFor
    @Option(help: "Age past which a finished push job and its outcomes are deleted, e.g. 7d.")
    var pushJobsKeptFor: String = "7d"
    @Option(help: "Devices (and call events) deleted per transaction.") var batchSize: Int = 1000
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = try logging.bootstrap(toStandardError: true)
        let age = try PruneCommand.age(notSeenFor, option: "--not-seen-for")
        let kept = try PruneCommand.age(callEventsKeptFor, option: "--call-events-kept-for")
        let jobsKept = try PruneCommand.age(pushJobsKeptFor, option: "--push-jobs-kept-for")
        guard batchSize > 0 else { throw ConfigurationError("--batch-size must be positive") }
        let (devices, events, jobs) = try await database.withPool(logger: logger) { pool in
            let devices = try await DeviceStore(pool: pool).prune(
                notSeenSince: Date().addingTimeInterval(-age), batchSize: batchSize)
            let events = try await CallEventStore(pool: pool).prune(
                createdBefore: Date().addingTimeInterval(-kept), batchSize: batchSize)
            let jobs = try await PushJobStore(pool: pool).pruneFinished(before: Date().addingTimeInterval(-jobsKept))
            return (devices, events, jobs)
        }
        print("Pruned \(devices) device\(devices == 1 ? "" : "s") not seen for \(notSeenFor).")
        print("Pruned \(events) call event\(events == 1 ? "" : "s") older than \(callEventsKeptFor).")
        print("Pruned \(jobs) push job\(jobs == 1 ? "" : "s") finished more than \(pushJobsKeptFor) ago.")
    }

    /// Seconds in a duration like `270d`, or one clear line saying what is expected.
    static func age(_ text: String, option: String) throws -> TimeInterval {
        guard let duration = try? CompactDuration(text) else {
            throw ConfigurationError("\(option) must be a positive duration like 270d, 12h, 90m or 30s, got '\(text)'")
        }
        return duration.timeInterval
    }
}
