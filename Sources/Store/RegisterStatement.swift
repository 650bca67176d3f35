import Postgres
import RegistryCore

/// One call of `register_device()` and the decoding of its answer.
enum RegisterStatement {
    static let sql = """
        SELECT r.result, r.previous_user_id, r.replaced_token, r.evicted_tokens, (r.device).*
          FROM register_device($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) r
        """

    static func parameters(_ registration: DeviceRegistration, userDeviceCap: Int) -> [(any PostgresEncodable)?] {
        [
            registration.provider.value, registration.token.value, registration.type.rawValue,
            registration.userID.value, registration.environment?.rawValue, registration.deviceID?.value,
            registration.platform?.value, registration.appVersion?.value, registration.locale?.value,
            userDeviceCap,
        ]
    }

    static func outcome(of result: PostgresResult, for registration: DeviceRegistration) throws -> RegistrationOutcome {
        guard let row = result.rows.first else { throw PostgresError.decoding("register_device returned no row") }
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
                device: try DeviceColumns.device(from: row), result: kind,
                previousUserID: try row["previous_user_id"].map { raw throws(ValidationError) in try UserID(raw) },
                replacedTokens: row["replaced_token"].map { [$0] } ?? [],
                evictedTokens: try row.stringArray("evicted_tokens"))
        }
    }
}
