import Foundation
import NIOConcurrencyHelpers

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
    private let reaped = NIOLockedValueBox<Int32?>(nil)
    /// Held while spawning and while making pipes: a child spawned between `pipe()` and marking
    /// its ends close-on-exec would inherit them and keep the pipe open. A bare lock: it guards a
    /// critical section, not a value (a `NIOLockedValueBox(())`'s empty value made TSan report
    /// Swift access races on it).
    private static let spawning = NIOLock()

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
        if let stderr {
            Self.redirect(2, to: stderr, in: &actions)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }

        let arguments = CStringArray(argv)
        let variables = environment.map { CStringArray($0.map { "\($0.key)=\($0.value)" }) }
        defer {
            arguments.free()
            variables?.free()
        }
        // As a fresh process would start: no blocked signals, none ignored (as Foundation's
        // Process does; our threads may block some).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid = pid_t()
        let spawned = Self.spawning.withLock {
            variables.map { posix_spawnp(&pid, argv[0], &actions, &attributes, arguments.pointers, $0.pointers) }
                ?? posix_spawnp(&pid, argv[0], &actions, &attributes, arguments.pointers, environ)
        }
        guard spawned == 0 else {
            throw TestSupportError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    /// The exit code, or 128 + the signal that ended it; nil while it runs. Never blocks.
    var exitCode: Int32? { reap(blocking: false) }

    /// Blocks until the child exits; returns what `exitCode` would.
    func waitForExit() -> Int32 {
        while true {
            if let code = reap(blocking: true) { return code }
            usleep(1000)  // another thread reaped it and is about to record the status
        }
    }

    func signal(_ signal: Int32) { if exitCode == nil { kill(pid, signal) } }

    /// A pipe whose ends no child inherits unless it is given one (`Stream.descriptor`).
    static func makePipe() throws -> (read: Int32, write: Int32) {
        try spawning.withLock {
            var descriptors: [Int32] = [0, 0]
            guard pipe(&descriptors) == 0 else { throw TestSupportError("pipe: \(String(cString: strerror(errno)))") }
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            return (descriptors[0], descriptors[1])
        }
    }

    /// The wait happens outside the lock, so a blocking one never holds up `exitCode` or `signal`.
    private func reap(blocking: Bool) -> Int32? {
        var status = reaped.withLockedValue { $0 }
        if status == nil {
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &raw, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
            status = reaped.withLockedValue { reaped in
                if result == pid { reaped = raw }
                return reaped
            }
        }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        return status.map { $0 & 0x7f == 0 ? ($0 >> 8) & 0xff : 128 + ($0 & 0x7f) }
    }

    private static func redirect(_ target: Int32, to stream: Stream, in actions: inout posix_spawn_file_actions_t) {
        switch stream {
        case .devNull: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
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
