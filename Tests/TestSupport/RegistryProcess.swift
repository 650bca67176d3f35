import Foundation
import NIOConcurrencyHelpers

/// A built binary of this package (`device-registry`, `mock-push`) run as a child process, its output captured line by line:
/// for tests of the command line, logs and signals.
public final class RegistryProcess: Sendable {
    /// A product of this package (`device-registry`, `mock-push`), beside the test bundle in the
    /// same build folder.
    public static func builtProduct(_ name: String) -> URL {
        let tests = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return tests.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name)
    }

    private let child: ChildProcess
    private let output = CapturedOutput()

    /// Starts `product arguments…` with `environment` added to a minimal one.
    public init(_ arguments: [String], environment: [String: String], product: String = "device-registry") throws {
        let out = try ChildProcess.makePipe()
        let err: (read: Int32, write: Int32)
        do { err = try ChildProcess.makePipe() } catch {
            for descriptor in [out.read, out.write] { close(descriptor) }
            throw error
        }
        defer {
            close(out.write)
            close(err.write)
        }
        do {
            child = try ChildProcess(
                [Self.builtProduct(product).path] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()].merging(environment) { $1 },
                stdout: .descriptor(out.write), stderr: .descriptor(err.write))
        } catch {
            close(out.read)
            close(err.read)
            throw error
        }
        capture(out.read, into: .stdout)
        capture(err.read, into: .stderr)
    }

    /// A plain thread per pipe, reading until end of file, then closing it.
    private func capture(_ descriptor: Int32, into stream: CapturedOutput.Stream) {
        Thread { [output] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                output.append(Data(buffer.prefix(max(count, 0))), to: stream)
                if count <= 0 { break }
            }
            close(descriptor)
        }.start()
    }

    public var stdout: [String] { output.lines(.stdout) }
    public var stderr: [String] { output.lines(.stderr) }
    public var isRunning: Bool { child.exitCode == nil }
    /// The exit code, or 128 + the signal that ended it (-1 while it runs).
    public var exitCode: Int32 { child.exitCode ?? -1 }

    /// Runs a command to completion; returns its exit code and output lines.
    public static func run(_ arguments: [String], environment: [String: String], timeout: Duration = .seconds(60))
        async throws -> (code: Int32, stdout: [String], stderr: [String])
    {
        let child = try RegistryProcess(arguments, environment: environment)
        try await child.waitForExit(within: timeout)
        try await Task.sleep(for: .milliseconds(50))  // the last output lines
        return (child.exitCode, child.stdout, child.stderr)
    }

    public func waitForExit(within timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            guard ContinuousClock.now < deadline else {
                child.signal(SIGKILL)
                throw TestFailure("device-registry did not exit within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for an output line that satisfies `match`.
    public func waitForLine(within timeout: Duration = .seconds(30), _ match: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = (stdout + stderr).first(where: match) { return line }
            guard isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("no matching line; stdout: \(stdout.suffix(5)) stderr: \(stderr.suffix(5))")
    }

    public func signal(_ signal: Int32) { child.signal(signal) }

    /// A server a test left running is killed and reaped, not left behind.
    deinit {
        guard isRunning else { return }
        child.signal(SIGKILL)
        _ = child.waitForExit()
    }
}

/// Output lines of a child process, appended from the pipes' reader threads.
private final class CapturedOutput: Sendable {
    enum Stream { case stdout, stderr }
    private struct Buffers {
        var lines: [Stream: [String]] = [:]
        var partial: [Stream: String] = [:]
    }
    private let buffers = NIOLockedValueBox(Buffers())

    func append(_ data: Data, to stream: Stream) {
        buffers.withLockedValue { buffers in
            var text = (buffers.partial[stream] ?? "") + String(decoding: data, as: UTF8.self)
            if data.isEmpty, !text.isEmpty { text += "\n" }  // end of output: keep the last line
            var pieces = text.components(separatedBy: "\n")
            buffers.partial[stream] = pieces.removeLast()
            buffers.lines[stream, default: []].append(contentsOf: pieces)
        }
    }

    func lines(_ stream: Stream) -> [String] { buffers.withLockedValue { $0.lines[stream] ?? [] } }
}
