import Metrics

/// `device_registry_build_info{version} 1`, so dashboards can tell which build is running.
enum BuildInfo {
    static let version = "0.1.0"

    static func record() {
        Gauge(label: "device_registry_build_info", dimensions: [("version", version)]).record(1)
    }
}
