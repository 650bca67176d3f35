import Foundation
import Postgres

/// A private PostgreSQL server for fault-injection tests (restart, stop, freeze) that must not
/// disturb tests sharing `TEST_DATABASE_URL`. Lives under the repository's git-ignored `.data/`;
/// runs as the `postgres` user when the tests run as root, since PostgreSQL refuses root.
/// Always `destroy()` it.
public final class ThrowawayCluster: Sendable {
    public let port: Int
    /// Superuser `postgres`, trust authentication, database `postgres`.
    public let url: String
    public let dataDirectory: URL
    private let serverOptions: [String]

    /// Initialises and starts a cluster on a free port. `serverOptions` are extra `-c name=value`
    /// settings, e.g. `["fsync=off"]`.
    public static func start(serverOptions: [String] = []) async throws -> ThrowawayCluster {
        let data = TestSupport.repositoryRoot.appendingPathComponent(".data")
            .appendingPathComponent("cluster-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: data.path)
        if getuid() == 0 {
            try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: data.path)
        }
        try await ThrowawayClusterCommand.run(
            "initdb", "-D", data.path, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8",
            "--no-sync")
        let cluster = ThrowawayCluster(
            port: try await TestSupport.freePort(), dataDirectory: data, serverOptions: serverOptions)
        try await cluster.start()
        return cluster
    }

    private init(port: Int, dataDirectory: URL, serverOptions: [String]) {
        self.port = port
        self.url = "postgresql://postgres@127.0.0.1:\(port)/postgres"
        self.dataDirectory = dataDirectory
        self.serverOptions = serverOptions
    }

    /// Starts the stopped server and waits until it accepts connections.
    public func start() async throws {
        let options =
            ["-p \(port)", "-c listen_addresses=127.0.0.1", "-c unix_socket_directories=''"]
            + serverOptions.map { "-c \($0)" }
        try await ThrowawayClusterCommand.run(
            "pg_ctl", "-D", dataDirectory.path, "-l", dataDirectory.appendingPathComponent("server.log").path,
            "-w", "-t", "30", "start", "-o", options.joined(separator: " "))
    }

    /// `mode`: "smart", "fast" (disconnects sessions cleanly) or "immediate" (a crash; recovery on start).
    public func stop(mode: String = "fast") async throws {
        try await ThrowawayClusterCommand.run("pg_ctl", "-D", dataDirectory.path, "-m", mode, "-w", "stop")
    }

    public func restart(mode: String = "fast") async throws {
        try await stop(mode: mode)
        try await start()
    }

    /// Freezes the server and its backends: connections stay open but nothing answers.
    public func pause() throws {
        try signal(SIGSTOP)
    }

    public func resume() throws {
        try signal(SIGCONT)
    }

    /// Ends every session with this `application_name` (as `pg_terminate_backend` does to idle
    /// pooled connections) and waits until they are gone. Returns how many there were.
    @discardableResult
    public func terminateAllBackends(applicationName: String) async throws -> Int {
        let pool = PostgresPool(
            configuration: PostgresConfiguration(
                url: url, applicationName: "throwaway-cluster-admin", statementTimeout: .seconds(10), poolSize: 1),
            logger: TestSupport.logger("throwaway-cluster"))
        let terminated: Result<Int, any Error>
        do {
            terminated = .success(
                try await pool.withConnection {
                    // With a timeout, pg_terminate_backend waits until the backend has exited.
                    try $0.query(
                        """
                        SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) AS terminated
                        FROM pg_stat_activity WHERE application_name = $1
                        """,
                        [applicationName]
                    ).rows[0].int("terminated")
                })
        } catch {
            terminated = .failure(error)
        }
        await pool.shutdown()
        return try terminated.get()
    }

    /// Stops the server (immediately) and deletes its files.
    public func destroy() async {
        try? resume()
        try? await stop(mode: "immediate")
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The postmaster first, so it cannot start new backends, then its children.
    private func signal(_ signal: Int32) throws {
        let pidFile = try String(contentsOf: dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8)
        guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw TestSupportError("no postmaster.pid in \(dataDirectory.path)")
        }
        kill(postmaster, signal)
        for child in Self.children(of: postmaster) { kill(child, signal) }
    }

    private static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (name)": state, then the parent's pid.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }
}
