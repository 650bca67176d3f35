import API
import Logging

/// At start, once the tables exist: the master key is tried on every stored provider credential.
/// One it cannot open is listed in `/readyz` (readiness stays 200: one bad credential must not
/// take the registry out of rotation); when it opens none while some are stored, the key is
/// wrong for this database, a deployment error, and the start is refused.
enum MasterKeyCheck {
    static func run(api: RegistryAPI, keyConfigured: Bool, logger: Logger) async throws {
        let check = try await api.checkStoredCredentials()
        guard keyConfigured, !check.unreadable.isEmpty else { return }
        guard !check.opened.isEmpty else {
            throw ConfigurationError(
                "REGISTRY_MASTER_KEY opens none of the \(check.unreadable.count) stored provider credentials "
                    + "(\(check.unreadable.map { $0.name }.joined(separator: ", "))): it is not the key they were sealed "
                    + "under. Set that key, or keep it in REGISTRY_OLD_MASTER_KEYS while rotating (providers reseal)")
        }
        logger.error(
            "some provider credentials cannot be opened with the master key; those providers cannot send",
            metadata: ["providers": "\(check.unreadable.map { $0.name }.joined(separator: ","))"])
    }
}
