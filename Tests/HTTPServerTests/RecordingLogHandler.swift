import Logging
import NIOConcurrencyHelpers

/// Keeps every log entry, for tests of what the server logs.
struct RecordingLogHandler: LogHandler {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    final class Store: Sendable {
        private let entries = NIOLockedValueBox<[Entry]>([])
        func append(_ entry: Entry) { entries.withLockedValue { $0.append(entry) } }
        var all: [Entry] { entries.withLockedValue { $0 } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        store.append(Entry(level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }))
    }

    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "recording") { _ in RecordingLogHandler(store: store) }, store)
    }
}
