import CoreMetrics
import NIOConcurrencyHelpers

/// Counts what the server records, per metric label and dimensions.
final class RecordingMetricsFactory: MetricsFactory, Sendable {
    struct Key: Hashable, Sendable {
        var label: String
        var dimensions: [String]
    }

    private let counters = NIOLockedValueBox<[Key: Int64]>([:])
    private let timers = NIOLockedValueBox<[Key: [Int64]]>([:])

    func counterValue(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        counters.withLockedValue { $0[Self.key(label, dimensions)] ?? 0 }
    }

    func timerValues(_ label: String, _ dimensions: [(String, String)]) -> [Int64] {
        timers.withLockedValue { $0[Self.key(label, dimensions)] ?? [] }
    }

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> Key {
        Key(label: label, dimensions: dimensions.map { "\($0.0)=\($0.1)" }.sorted())
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        Handler(key: Self.key(label, dimensions), factory: self)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        Handler(key: Self.key(label, dimensions), factory: self)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        Handler(key: Self.key(label, dimensions), factory: self)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        Handler(key: Self.key(label, dimensions), factory: self)
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    private final class Handler: CounterHandler, FloatingPointCounterHandler, RecorderHandler, TimerHandler, Sendable {
        let key: Key
        let factory: RecordingMetricsFactory

        init(key: Key, factory: RecordingMetricsFactory) {
            self.key = key
            self.factory = factory
        }

        func increment(by amount: Int64) { factory.counters.withLockedValue { $0[key, default: 0] += amount } }
        func increment(by amount: Double) {}
        func reset() {}
        func record(_ value: Int64) {}
        func record(_ value: Double) {}
        func recordNanoseconds(_ duration: Int64) {
            factory.timers.withLockedValue { $0[key, default: []].append(duration) }
        }
    }
}
