import ArgumentParser
import Postgres

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply the pending database migrations and exit.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = try logging.bootstrap(toStandardError: true)
        let applied = try await DatabaseSetup.migrate(
            try database.migrator(), over: try database.sessionConfiguration(), logger: logger)
        print(
            applied.isEmpty ? "Up to date." : applied.map { "Applied \($0.version) \($0.name)" }.joined(separator: "\n")
        )
    }
}
