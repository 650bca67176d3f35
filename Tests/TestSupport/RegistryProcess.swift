import Foundation
import Synchronization

/// The built `device-registry` binary run as a child process, its output captured line by line:
/// for tests of the command line, logs and signals.
public final class RegistryProcess: Sendable {
    /// Beside the test bundle, in the same build folder.
    public static var executable: URL {
        let tests = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return tests.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("device-registry")
    }

    private let process: Process
    private let output = CapturedOutput()

    /// Starts `device-registry arguments…` with `environment` added to a minimal one.
    public init(_ arguments: [String], environment: [String: String]) throws {
        process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()].merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        capture(out, into: .stdout)
        capture(err, into: .stderr)
        try process.run()
    }

    /// A plain thread per pipe, reading until end of file: `readabilityHandler` (a dispatch
    /// source) has crashed the test process on Linux when the pipe closed.
    private func capture(_ pipe: Pipe, into stream: CapturedOutput.Stream) {
        let handle = pipe.fileHandleForReading
        Thread { [output] in
            while true {
                let data = handle.availableData
                output.append(data, to: stream)
                if data.isEmpty { return }
            }
        }.start()
    }

    public var stdout: [String] { output.lines(.stdout) }
    public var stderr: [String] { output.lines(.stderr) }
    public var isRunning: Bool { process.isRunning }
    public var exitCode: Int32 { process.terminationStatus }

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
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
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
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("no matching line; stdout: \(stdout.suffix(5)) stderr: \(stderr.suffix(5))")
    }

    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    deinit { if process.isRunning { process.terminate() } }
}

/// Output lines of a child process, appended from the pipes' reader threads.
private final class CapturedOutput: Sendable {
    enum Stream { case stdout, stderr }
    private struct Buffers {
        var lines: [Stream: [String]] = [:]
        var partial: [Stream: String] = [:]
    }
    private let buffers = Mutex(Buffers())

    func append(_ data: Data, to stream: Stream) {
        buffers.withLock { buffers in
            var text = (buffers.partial[stream] ?? "") + String(decoding: data, as: UTF8.self)
            if data.isEmpty, !text.isEmpty { text += "\n" }  // end of output: keep the last line
            var pieces = text.components(separatedBy: "\n")
            buffers.partial[stream] = pieces.removeLast()
            buffers.lines[stream, default: []].append(contentsOf: pieces)
        }
    }

    func lines(_ stream: Stream) -> [String] { buffers.withLock { $0.lines[stream] ?? [] } }
}
