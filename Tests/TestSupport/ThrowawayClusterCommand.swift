import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs PostgreSQL's server programs from `PG_BINDIR`, as the `postgres` user when we are root.
///
/// Not Foundation's `Process`: on Linux it learns that a child exited from a socket the child
/// inherits, and the postmaster that `pg_ctl start` leaves behind inherits it too, so the exit of
/// `pg_ctl` is never reported. `posix_spawn` and `waitpid` have no such side channel.
enum ThrowawayClusterCommand {
    static func run(_ program: String, _ arguments: String...) async throws {
        let binDirectory = ProcessInfo.processInfo.environment["PG_BINDIR"] ?? newestInstalledBinDirectory()
        let command = [binDirectory + "/" + program] + arguments
        let argv = getuid() == 0 ? ["runuser", "-u", "postgres", "--"] + command : command
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-command-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: output) }

        let status = try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Int32, any Error>) in
            DispatchQueue.global().async {
                finished.resume(with: Result { try spawnAndWait(argv, output: output.path) })
            }
        }
        guard status == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw TestSupportError("\(program) failed (status \(status)): \(text)")
        }
    }

    /// Blocks until the program exits; returns its exit status. Output goes to the file at `output`.
    private static func spawnAndWait(_ argv: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, argv[0], &actions, nil, &arguments, environ)
        guard spawned == 0 else {
            throw TestSupportError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    private static func newestInstalledBinDirectory() -> String {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap(Int.init).max() ?? 15
        return "/usr/lib/postgresql/\(newest)/bin"
    }
}
