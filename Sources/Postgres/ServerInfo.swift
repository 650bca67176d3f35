/// What `Preflight` learned about the server.
public struct ServerInfo: Sendable, Equatable {
    /// `server_version`, e.g. "15.18 (Debian 15.18-1)".
    public let version: String
    /// `server_version_num`, e.g. 150018.
    public let versionNumber: Int
    public let fsync: Bool
    /// `synchronous_commit`: on, off, local, remote_write or remote_apply.
    public let synchronousCommit: String
}
