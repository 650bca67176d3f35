import Foundation

/// Finds the files the binary ships with (`Migrations/`, `openapi.yaml`) without depending on the
/// working directory: an explicit path when given, else the first match beside the executable or
/// in one of its parent folders — `/app/…` in the container, the repository's own files for a
/// binary under `.build/`.
enum ResourceLocator {
    static func locate(_ name: String, override: String? = nil) throws -> URL {
        if let override {
            guard FileManager.default.fileExists(atPath: override) else {
                throw ConfigurationError("\(override) does not exist")
            }
            return URL(fileURLWithPath: override)
        }
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<8 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        throw ConfigurationError("no \(name) beside the executable or above it")
    }
}
