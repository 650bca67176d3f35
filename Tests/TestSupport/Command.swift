import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command line tool (`openssl`, `curl`) found in PATH and captures what it printed, with
/// `ChildProcess` (posix_spawn), like every other child the tests start.
public enum Command {
    public struct Failed: Error, CustomStringConvertible {
        public let command: String
        public let status: Int32
        public let standardError: String
        public var description: String { "\(command) exited \(status): \(standardError)" }
    }

    public struct Output: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    /// Throws `Failed` unless the tool exits 0.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> Output {
        let output = try capture(tool, arguments)
        guard output.status == 0 else {
            throw Failed(
                command: tool + " " + (arguments.first ?? ""), status: output.status,
                standardError: output.standardError)
        }
        return output
    }

    /// Whatever the exit status. Both streams go to files, so neither can fill up while the
    /// other is read.
    public static func capture(_ tool: String, _ arguments: [String]) throws -> Output {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString)").path
        let (outPath, errPath) = (base + ".out", base + ".err")
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        let status = try ChildProcess([tool] + arguments, stdout: .file(outPath), stderr: .file(errPath)).waitForExit()
        return Output(status: status, standardOutput: contents(of: outPath), standardError: contents(of: errPath))
    }

    /// A file's text, read with read(2): Foundation's `Data(contentsOf:)` on Linux leaves a buffer
    /// allocated per call, which LeakSanitizer reports.
    private static func contents(of path: String) -> String {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
