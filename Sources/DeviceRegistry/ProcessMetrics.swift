import Foundation
import Metrics
import NIOConcurrencyHelpers

/// The Prometheus client conventions' `process_*` series, read from `/proc/self` at each scrape
/// (neither swift-metrics 2.13 nor swift-prometheus 2.4 collects them): resident and virtual
/// memory, CPU seconds, open and allowed file descriptors, and the start time. On a system
/// without `/proc` nothing is recorded.
final class ProcessMetrics: Sendable {
    private let cpuSeconds = FloatingPointCounter(label: "process_cpu_seconds_total")
    private let residentMemory = Gauge(label: "process_resident_memory_bytes")
    private let virtualMemory = Gauge(label: "process_virtual_memory_bytes")
    private let openFDs = Gauge(label: "process_open_fds")
    private let maxFDs = Gauge(label: "process_max_fds")
    private let startTime = Gauge(label: "process_start_time_seconds")
    /// CPU seconds already added to the counter.
    private let counted = NIOLockedValueBox(0.0)

    init() {
        startTime.record(Date().timeIntervalSince1970 - ProcessInfo.processInfo.systemUptime + Self.startedAfterBoot())
        // "Max open files  1024  1048576  files": the soft limit is what the process gets.
        let limits = (try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8)) ?? ""
        if let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }),
            let soft = Double(line.split(separator: " ")[3])
        {
            maxFDs.record(soft)
        }
    }

    func record() {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let fields = Self.fieldsAfterName(stat), fields.count > 21
        else { return }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        // utime and stime (fields 14 and 15 of stat(5); 12 and 13 after the name), in clock ticks.
        let cpu = ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
        let added = counted.withLockedValue { counted in
            defer { counted = max(counted, cpu) }
            return max(0, cpu - counted)
        }
        cpuSeconds.increment(by: added)
        virtualMemory.record(Double(fields[20]) ?? 0)
        residentMemory.record((Double(fields[21]) ?? 0) * Double(sysconf(Int32(_SC_PAGESIZE))))
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openFDs.record(descriptors.count)
        }
    }

    /// Seconds from boot to this process's start (field 22 of stat(5)).
    private static func startedAfterBoot() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let fields = fieldsAfterName(stat), fields.count > 19, let ticks = Double(fields[19])
        else { return 0 }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The fields after `(comm)`, which may itself hold spaces and parentheses; the first is the state.
    private static func fieldsAfterName(_ stat: String) -> [Substring]? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
