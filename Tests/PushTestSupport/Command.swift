import Foundation

/// Runs a command line tool (`openssl`, `curl`) and captures what it printed.
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

    /// Whatever the exit status.
    public static func capture(_ tool: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let standardOutput = Pipe()
        // Standard error goes to a file, so neither stream can fill up while the other is read.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = standardOutput
        process.standardError = errorHandle
        try process.run()
        let out = standardOutput.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errorHandle.close()
        let err = try Data(contentsOf: errorFile)
        return Output(
            status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self),
            standardError: String(decoding: err, as: UTF8.self))
    }
}
