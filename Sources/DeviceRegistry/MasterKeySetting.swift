import Foundation
import RegistryCrypto

/// The master key provider credentials are sealed under: `REGISTRY_MASTER_KEY`, plus the keys
/// of a rotation in progress in `REGISTRY_OLD_MASTER_KEYS` (comma-separated), which only open.
/// Environment only (or `_FILE`, see `Secrets`): a key on the command line would show in `ps`.
enum MasterKeySetting {
    /// Nil without `REGISTRY_MASTER_KEY`: the service runs, and storing credentials is refused.
    static func sealer(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SecretSealer? {
        let oldKeys = try Secrets.value("REGISTRY_OLD_MASTER_KEYS", environment: environment)
        guard let current = try Secrets.value("REGISTRY_MASTER_KEY", environment: environment) else {
            if oldKeys != nil {
                throw ConfigurationError("REGISTRY_OLD_MASTER_KEYS is set without REGISTRY_MASTER_KEY")
            }
            return nil
        }
        let old = (oldKeys ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return SecretSealer(
            current: try key(current, name: "REGISTRY_MASTER_KEY"),
            previous: try old.filter { !$0.isEmpty }.map { try key($0, name: "REGISTRY_OLD_MASTER_KEYS") })
    }

    private static func key(_ text: String, name: String) throws -> MasterKey {
        do {
            return try MasterKey(base64url: text)
        } catch {
            throw ConfigurationError("\(name) \(error.description)")
        }
    }
}
