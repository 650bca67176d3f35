import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs PostgreSQL's server programs from `PG_BINDIR`, as the `postgres` user when we are root.
enum ThrowawayClusterCommand {
    static func run(_ program: String, _ arguments: String...) async throws {
        let binDirectory = ProcessInfo.processInfo.environment["PG_BINDIR"] ?? newestInstalledBinDirectory()
        let command = [binDirectory + "/" + program] + arguments
        let argv = getuid() == 0 ? ["runuser", "-u", "postgres", "--"] + command : command
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-command-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: output) }

        let status = try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Int32, any Error>) in
            DispatchQueue.global().async {
                finished.resume(with: Result { try ChildProcess(argv, stdout: .file(output.path)).waitForExit() })
            }
        }
        guard status == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw TestSupportError("\(program) failed (status \(status)): \(text)")
        }
    }

    private static func newestInstalledBinDirectory() -> String {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap(Int.init).max() ?? 15
        return "/usr/lib/postgresql/\(newest)/bin"
    }
}
