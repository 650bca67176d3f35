import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn` and reaped with `waitpid`.
///
/// Not Foundation's `Process`, for two reasons seen on Linux: it learns that a child exited from a
/// socket the child inherits, and the postmaster that `pg_ctl start` leaves behind inherits it too,
/// so the exit of `pg_ctl` is never reported; and every `Process` stays in a retain cycle with its
/// run-loop source, which LeakSanitizer reports (swift-corelibs-foundation#3260).
final class ChildProcess: Sendable {
    /// What the child's standard streams are.
    enum Stream {
        case devNull
        /// Written to (created or truncated) this file.
        case file(String)
        /// The given descriptor of ours; the child gets a copy.
        case descriptor(Int32)
    }

    let pid: pid_t
    /// The raw `waitpid` status once the child has been reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `argv[0]` (looked up in PATH) with `environment`, or ours when nil. Standard error is
    /// standard output when `stderr` is nil.
    init(_ argv: [String], environment: [String: String]? = nil, stdout: Stream = .devNull, stderr: Stream? = nil)
        throws
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        Self.redirect(1, to: stdout, in: &actions)
        if let stderr { Self.redirect(2, to: stderr, in: &actions) } else { posix_spawn_file_actions_adddup2(&actions, 1, 2) }

        let arguments = CStringArray(argv)
        let variables = environment.map { CStringArray($0.map { "\($0.key)=\($0.value)" }) }
        defer { arguments.free(); variables?.free() }
        var pid = pid_t()
        let spawned =
            variables.map { posix_spawnp(&pid, argv[0], &actions, nil, arguments.pointers, $0.pointers) }
            ?? posix_spawnp(&pid, argv[0], &actions, nil, arguments.pointers, environ)
        guard spawned == 0 else {
            throw TestSupportError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    /// The exit code, or 128 + the signal that ended it; nil while it runs. Never blocks.
    var exitCode: Int32? { reap(blocking: false) }

    /// Blocks until the child exits; returns what `exitCode` would.
    func waitForExit() -> Int32 { reap(blocking: true)! }

    func signal(_ signal: Int32) { if exitCode == nil { kill(pid, signal) } }

    private func reap(blocking: Bool) -> Int32? {
        let status = reaped.withLock { reaped -> Int32? in
            if reaped == nil {
                var status: Int32 = 0
                var result: pid_t
                repeat { result = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
                if result == pid { reaped = status }
            }
            return reaped
        }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        return status.map { $0 & 0x7f == 0 ? ($0 >> 8) & 0xff : 128 + ($0 & 0x7f) }
    }

    private static func redirect(_ target: Int32, to stream: Stream, in actions: inout posix_spawn_file_actions_t) {
        switch stream {
        case .devNull: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        }
    }
}

/// A NULL-terminated `char *[]` for `posix_spawn`; `free()` releases the copies.
private struct CStringArray {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) { pointers = strings.map { strdup($0) } + [nil] }

    func free() { for pointer in pointers { Glibc.free(pointer) } }
}
