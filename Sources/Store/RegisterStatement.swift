import Postgres
import RegistryCore

/// One call of `register_device()`, or of `register_devices()` for a run of registrations in a
/// group-commit batch, and the decoding of their answers.
enum RegisterStatement {
    static let sql = """
        SELECT r.result, r.previous_user_id, r.replaced_token, r.evicted_tokens, (r.device).*
          FROM register_device($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) r
        """

    static let batchSQL = """
        SELECT r.ord, r.result, r.previous_user_id, r.replaced_token, r.evicted_tokens, (r.device).*
          FROM register_devices($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) r
        """

    static func parameters(_ registration: DeviceRegistration, userDeviceCap: Int) -> [(any PostgresEncodable)?] {
        [
            registration.provider.value, registration.token.value, registration.type.rawValue,
            registration.userID.value, registration.environment?.rawValue, registration.deviceID?.value,
            registration.platform?.value, registration.appVersion?.value, registration.locale?.value,
            userDeviceCap,
        ]
    }

    static func batchParameters(_ registrations: [DeviceRegistration], userDeviceCap: Int) -> [(any PostgresEncodable)?]
    {
        columns(registrations) + [userDeviceCap]
    }

    /// The nine parallel arrays `register_devices()` and `import_devices()` take. Closures, not
    /// key paths: an optional-chained key path is projected at run time, per element.
    static func columns(_ registrations: [DeviceRegistration]) -> [(any PostgresEncodable)?] {
        [
            registrations.map { $0.provider.value }, registrations.map { $0.token.value },
            registrations.map { $0.type.rawValue }, registrations.map { $0.userID.value },
            registrations.map { $0.environment?.rawValue }, registrations.map { $0.deviceID?.value },
            registrations.map { $0.platform?.value }, registrations.map { $0.appVersion?.value },
            registrations.map { $0.locale?.value },
        ]
    }

    static func outcome(of result: PostgresResult, for registration: DeviceRegistration) throws -> RegistrationOutcome {
        guard let row = result.rows.first else { throw PostgresError.decoding("register_device returned no row") }
        return try outcome(of: row, for: registration)
    }

    /// `register_devices()`'s rows in item order, each decoded like `register_device()`'s.
    static func outcomes(
        of result: PostgresResult, for registrations: [DeviceRegistration]
    ) throws -> [Result<RegistrationOutcome, any Error>] {
        var outcomes = [Result<RegistrationOutcome, any Error>?](repeating: nil, count: registrations.count)
        for row in result.rows {
            let ord = try row.int("ord")
            guard registrations.indices.contains(ord - 1), outcomes[ord - 1] == nil else {
                throw PostgresError.decoding("register_devices answered item \(ord) of \(registrations.count)")
            }
            outcomes[ord - 1] = Result { try outcome(of: row, for: registrations[ord - 1]) }
        }
        return try outcomes.map { outcome in
            guard let outcome else { throw PostgresError.decoding("register_devices left an item unanswered") }
            return outcome
        }
    }

    private static func outcome(of row: PostgresRow, for registration: DeviceRegistration) throws -> RegistrationOutcome
    {
        switch try row.string("result") {
        case "unknown_provider":
            throw RegistryError.unknownProvider(field: "provider", name: registration.provider.value)
        case "type_not_accepted":
            throw RegistryError.typeNotAccepted(
                field: "type", type: registration.type, provider: registration.provider.value,
                service: registration.type.service == .apns ? .fcm : .apns)
        case let raw:
            guard let kind = RegistrationResult(rawValue: raw) else {
                throw PostgresError.decoding("unexpected register_device result \(raw)")
            }
            return RegistrationOutcome(
                device: try DeviceColumns.device(from: row, written: registration), result: kind,
                previousUserID: try row["previous_user_id"].map { raw throws(ValidationError) in try UserID(raw) },
                replacedTokens: row["replaced_token"].map { [$0] } ?? [],
                evictedTokens: try row.stringArray("evicted_tokens"))
        }
    }
}
