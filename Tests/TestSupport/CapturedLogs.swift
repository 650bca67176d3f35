import Foundation
import Logging
import NIOConcurrencyHelpers

/// Keeps every log line a test server writes, so tests can check what is (and is not) logged.
/// Lines go to stderr too when `TEST_LOG=1`, for debugging; tests are quiet otherwise.
public final class CapturedLogs: Sendable {
    public struct Line: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]
    }

    private let lines = NIOLockedValueBox<[Line]>([])
    private let echo = ProcessInfo.processInfo.environment["TEST_LOG"] == "1"

    public init() {}

    public var all: [Line] { lines.withLockedValue { $0 } }

    /// Every line as text, message and metadata, for "no secret appears anywhere" checks.
    public var joined: String {
        all.map { line in
            ([line.message] + line.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: " ")
        }.joined(separator: "\n")
    }

    public func logger(label: String) -> Logger {
        Logger(label: label) { _ in Handler(logs: self) }
    }

    fileprivate func append(_ line: Line) {
        lines.withLockedValue { $0.append(line) }
        if echo { FileHandle.standardError.write(Data("[\(line.level)] \(line.message) \(line.metadata)\n".utf8)) }
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            logs.append(Line(level: event.level, message: event.message.description, metadata: merged))
        }
    }
}
