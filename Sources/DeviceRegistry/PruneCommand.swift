import ArgumentParser
import Foundation
import RegistryCore
import Store

struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete devices not seen for a while, in bounded batches, and print how many.")

    @Option(help: "Age past which a device is stale, e.g. 270d (Firebase's inactivity limit), 12h, 90m.")
    var notSeenFor: String = "270d"
    @Option(help: "Devices deleted per transaction.") var batchSize: Int = 1000
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = try logging.bootstrap(toStandardError: true)
        let age = try PruneCommand.age(notSeenFor, option: "--not-seen-for")
        guard batchSize > 0 else { throw ConfigurationError("--batch-size must be positive") }
        let deleted = try await database.withPool(logger: logger) { pool in
            try await DeviceStore(pool: pool).prune(
                notSeenSince: Date().addingTimeInterval(-age), batchSize: batchSize)
        }
        print("Pruned \(deleted) device\(deleted == 1 ? "" : "s") not seen for \(notSeenFor).")
    }

    /// Seconds in a duration like `270d`, or one clear line saying what is expected.
    static func age(_ text: String, option: String) throws -> TimeInterval {
        guard let duration = try? CompactDuration(text) else {
            throw ConfigurationError("\(option) must be a positive duration like 270d, 12h, 90m or 30s, got '\(text)'")
        }
        return duration.timeInterval
    }
}
