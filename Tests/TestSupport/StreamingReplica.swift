import Foundation

/// A hot standby of a `ThrowawayCluster`, made the way an operator makes one: `pg_basebackup -R`
/// (a base backup that streams WAL, with the standby settings written for it), then started on a
/// port of its own. The primary's default `pg_hba.conf` trusts replication from 127.0.0.1.
/// Always `destroy()` it (before the primary).
public final class StreamingReplica: Sendable {
    public let port: Int
    /// Superuser `postgres`, database `postgres`; read-only.
    public let url: String
    public let dataDirectory: URL

    public static func start(of primary: ThrowawayCluster) async throws -> StreamingReplica {
        let data = TestSupport.repositoryRoot.appendingPathComponent(".data")
            .appendingPathComponent("replica-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: data.path)
        if getuid() == 0 {
            try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: data.path)
        }
        try await ThrowawayClusterCommand.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", "\(primary.port)", "-U", "postgres", "-D", data.path, "-R",
            "-X", "stream", "-c", "fast", "--no-sync")
        let replica = StreamingReplica(port: try await TestSupport.freePort(), dataDirectory: data)
        try await replica.start()
        return replica
    }

    private init(port: Int, dataDirectory: URL) {
        self.port = port
        self.url = "postgresql://postgres@127.0.0.1:\(port)/postgres"
        self.dataDirectory = dataDirectory
    }

    /// Starts the stopped standby and waits until it accepts connections.
    public func start() async throws {
        try await ThrowawayClusterCommand.run(
            "pg_ctl", "-D", dataDirectory.path, "-l", dataDirectory.appendingPathComponent("server.log").path,
            "-w", "-t", "30", "start",
            "-o", "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories=''")
    }

    /// `mode`: "fast" or "immediate" (a crash).
    public func stop(mode: String = "fast") async throws {
        try await ThrowawayClusterCommand.run("pg_ctl", "-D", dataDirectory.path, "-m", mode, "-w", "stop")
    }

    public func destroy() async {
        try? await stop(mode: "immediate")
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
