import Foundation
import MockPush
import PushRules
import PushTestSupport
import Testing

@testable import PushDelivery

/// Not a test: figures for rings through connections that die. Rings (VoIP pushes, one token
/// each, a 30 s window) go out at `BENCH_RING_RATE` (200) per second for `BENCH_SECONDS` (60)
/// through a `FaultProxy` that black-holes the open connection every `BENCH_FAULT_EVERY` (10) s
/// (0: never); it prints rings sent,
/// lost (never reached the mock), late (reached it after the window), doubled (reached it twice)
/// and p50/p99 from a ring's start to the mock. It measures the sender, in process, on the debug
/// build; `scripts/bench ring` measures the whole service. Run with
/// `BENCH_RING_FAULTS=1 swift test --filter RingFaultBench`.
@Suite struct RingFaultBench {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: environment["BENCH_RING_FAULTS"] != nil))
    func ringsThroughBlackholes() async throws {
        let seconds = Int(Self.environment["BENCH_SECONDS"] ?? "") ?? 60
        let rate = Int(Self.environment["BENCH_RING_RATE"] ?? "") ?? 200
        let faultEvery = Int(Self.environment["BENCH_FAULT_EVERY"] ?? "") ?? 10
        let window: TimeInterval = 30
        try await DeadConnectionTests.withSender(configuration: SenderConfiguration()) { setup in
            try await run(setup, seconds: seconds, rate: rate, faultEvery: faultEvery, window: window)
        }
    }

    func run(_ setup: DeadConnectionTests.Setup, seconds: Int, rate: Int, faultEvery: Int, window: TimeInterval)
        async throws
    {
        let (fixture, proxy, sender) = (setup.fixture, setup.proxy, setup.sender)
        let payload = APNsSenderTests.payload
        let started = Date()
        let results = try await withThrowingTaskGroup(of: DeliveryResult?.self) { group in
            group.addTask {
                // The fault: every 10 s, the connection in use goes silent.
                for blackhole in stride(from: faultEvery, to: faultEvery > 0 ? seconds : 0, by: max(faultEvery, 1)) {
                    let at = started.addingTimeInterval(TimeInterval(blackhole))
                    try await Task.sleep(until: .now + .seconds(at.timeIntervalSinceNow))
                    proxy.blackholeOpenConnections()
                }
                return nil
            }
            for index in 0..<(seconds * rate) {
                let start = started.addingTimeInterval(TimeInterval(index) / TimeInterval(rate))
                // Open loop: each ring starts at its time, whatever the ones before it do.
                try await Task.sleep(until: .now + .seconds(start.timeIntervalSinceNow))
                let options = try APNsSendOptions(pushType: .voip, priority: 10, expiration: start + window)
                group.addTask {
                    await sender.send(
                        payload, to: Self.token(index), environment: .production, options: options,
                        deadline: .now + .seconds(start.addingTimeInterval(window).timeIntervalSinceNow))
                }
            }
            return try await group.reduce(into: [DeliveryResult]()) { if let result = $1 { $0.append(result) } }
        }
        let requests = fixture.server.recordedRequests.filter { $0.status == 200 }
        var arrivals: [String: [Date]] = [:]
        for request in requests { arrivals[request.deviceToken ?? "", default: []].append(request.receivedAt) }
        var latencies: [TimeInterval] = []
        var late = 0
        for index in 0..<(seconds * rate) {
            let start = started.addingTimeInterval(TimeInterval(index) / TimeInterval(rate))
            guard let first = arrivals[Self.token(index)]?.min() else { continue }
            latencies.append(first.timeIntervalSince(start))
            late += arrivals[Self.token(index)]!.count { $0 > start + window }
        }
        latencies.sort()
        func percentile(_ p: Double) -> String {
            guard !latencies.isEmpty else { return "-" }
            return String(format: "%.3f s", latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))])
        }
        let rings = seconds * rate
        let sent = results.count { if case .sent = $0.status { true } else { false } }
        let doubled = arrivals.values.count { $0.count > 1 }
        let maybeDelivered = results.count(where: \.maybeDelivered)
        print(
            """
            ring --faults (sender, debug build): \(rings) rings at \(rate)/s for \(seconds) s, blackhole every \(faultEvery) s
              sent \(sent), lost \(rings - latencies.count), late \(late), doubled \(doubled), \
            maybe_delivered \(maybeDelivered), connections \(proxy.connectionsAccepted)
              ring start to the mock: p50 \(percentile(0.5)), p99 \(percentile(0.99))
            """)
    }

    static func token(_ index: Int) -> String { String(format: "%064x", index) }
}
