import CallPush
import Postgres
import RegistryCore

extension DeviceStore {
    /// Registers one token that asked for encrypted payloads (`payload_encryption`), in one
    /// transaction with storing its key: the device keeps the key it has unless `rotate`, and
    /// stores `payloadKey` when it has none (first such registration, or its token just moved to
    /// another user, which drops the previous user's key). Returns the key when this registration
    /// stored it, so the phone is shown it exactly once; nil when the device keeps its key.
    /// Throws a validation error on `payload_encryption` when the provider's `call_format` is not
    /// `signalwire`, and what `register(_:)` throws.
    public func register(_ registration: DeviceRegistration, payloadKey: NewPayloadKey, rotate: Bool) async throws
        -> (outcome: RegistrationOutcome, storedKey: PayloadKey?)
    {
        try await StoreFailure.translating {
            let registered = try await pool.withTransaction { connection in
                let format: String? = try connection.queryPrepared(
                    "SELECT call_format FROM providers WHERE name = $1 FOR KEY SHARE", [registration.provider.value]
                ).rows.first?["call_format"]
                if let format, format != CallFormat.signalwire.rawValue {
                    throw RegistryError.validation([
                        ValidationError(
                            field: "payload_encryption",
                            message: "only applies to providers whose call_format is signalwire; "
                                + "\(registration.provider.value)'s is \(format)")
                    ])
                }
                let outcome = try WriteOperation.register(registration, userDeviceCap: userDeviceCap)
                    .run(on: connection).registration
                let stored =
                    try connection.queryPrepared(
                        """
                        UPDATE devices SET payload_key_sealed = $3
                         WHERE provider = $1 AND token = $2 AND (payload_key_sealed IS NULL OR $4)
                        """,
                        [registration.provider.value, registration.token.value, payloadKey.sealed, rotate]
                    ).affectedRows > 0
                return (outcome, stored ? payloadKey.key : nil)
            }
            try await readReplica?.noteCommit(of: ReadKey.of(registration))
            return registered
        }
    }
}
