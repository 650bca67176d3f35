import Foundation
import Postgres

/// The test process's migrated templates, one per server, and its admin statements. An actor, so
/// that tests running in parallel build each template once.
actor TestDatabaseServer {
    static let shared = TestDatabaseServer()

    private var templates: [String: Task<String, any Error>] = [:]

    /// Runs a statement that cannot run in a transaction (CREATE/DROP/ALTER DATABASE) on the server's
    /// maintenance database, with time to spare for a busy machine.
    func execute(_ sql: String, on serverURL: String) async throws {
        try await withAdminConnection(serverURL) { try $0.execute(sql) }
    }

    /// The name of a database with the repository's migrations applied.
    func template(on serverURL: String) async throws -> String {
        if let template = templates[serverURL] { return try await template.value }
        let task = Task { try await buildTemplate(on: serverURL) }
        templates[serverURL] = task
        return try await task.value
    }

    /// A connection of its own, closed afterwards: a pool kept for the life of the test process
    /// would still hold its threads' memory at exit, which LeakSanitizer reports.
    private func withAdminConnection<T: Sendable>(
        _ serverURL: String, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let configuration = PostgresConfiguration(
            url: serverURL, applicationName: "test-database-admin", connectTimeout: .seconds(10),
            statementTimeout: .seconds(60), poolSize: 1, poolWaitTimeout: .seconds(60))
        let pool = PostgresPool(configuration: configuration, logger: TestSupport.logger("test-database"))
        let outcome = await Result.of { try await pool.withConnection(body) }
        await pool.shutdown()
        return try outcome.get()
    }

    /// Other test processes may build the same template at the same time: each builds under a
    /// private name and renames it into place; a loser drops its copy and uses the winner's.
    private func buildTemplate(on serverURL: String) async throws -> String {
        let migrations = try TestSupport.repositoryMigrations()
        let fingerprint = Migration(version: 0, name: "", sql: migrations.map(\.checksum).joined()).checksum
        let name = "template_" + fingerprint.prefix(16)
        let exists = try await withAdminConnection(serverURL) {
            try !$0.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]).rows.isEmpty
        }
        if exists { return name }

        let stagingName = name + "_" + UUID().uuidString.prefix(8).lowercased()
        let staging = TestDatabase(name: stagingName, url: try TestDatabase.url(serverURL, database: stagingName))
        try await execute("CREATE DATABASE \(staging.name)", on: serverURL)
        try await staging.migrate(migrations)
        do {
            try await execute("ALTER DATABASE \(staging.name) RENAME TO \(name)", on: serverURL)
        } catch PostgresError.server(let sqlstate, _) where sqlstate == "42P04" {
            try? await execute("DROP DATABASE \(staging.name) WITH (FORCE)", on: serverURL)
        }
        return name
    }
}
