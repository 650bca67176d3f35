import Foundation

/// A configuration value taken from its flag, else its environment variable, else a default.
/// A value that does not parse or is out of range stops the start with one clear line.
enum Setting {
    static func resolve<T: LosslessStringConvertible>(
        _ flag: T?, env name: String, default fallback: T,
        valid: (T) -> Bool = { _ in true }, expected: String = "a valid value"
    ) throws -> T {
        if let flag {
            guard valid(flag) else {
                throw ConfigurationError("--\(flagName(name)) must be \(expected), got '\(flag)'")
            }
            return flag
        }
        guard let raw = ProcessInfo.processInfo.environment[name], !raw.isEmpty else { return fallback }
        guard let value = T(raw), valid(value) else {
            throw ConfigurationError("\(name) must be \(expected), got '\(raw)'")
        }
        return value
    }

    /// The same for enumerations (log level, log format): the flag was already checked by ArgumentParser.
    static func resolve<T: RawRepresentable>(_ flag: T?, env name: String, default fallback: T) throws -> T
    where T.RawValue == String, T: CaseIterable {
        if let flag { return flag }
        guard let raw = ProcessInfo.processInfo.environment[name], !raw.isEmpty else { return fallback }
        guard let value = T(rawValue: raw.lowercased()) else {
            let choices = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError("\(name) must be one of \(choices), got '\(raw)'")
        }
        return value
    }

    static func optional(_ flag: String?, env name: String) -> String? {
        if let flag { return flag }
        guard let raw = ProcessInfo.processInfo.environment[name], !raw.isEmpty else { return nil }
        return raw
    }

    /// The flag, else the secret `name` from the environment or its `_FILE` (see `Secrets`).
    static func secret(_ flag: String?, env name: String) throws -> String? {
        if let flag { return flag }
        return try Secrets.value(name)
    }

    /// PORT → port, DB_POOL_SIZE → db-pool-size: only for messages.
    private static func flagName(_ env: String) -> String { env.lowercased().replacingOccurrences(of: "_", with: "-") }
}

/// A start-up problem reported as one line (ArgumentParser prints "Error: " and the description).
struct ConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
