import Foundation
import Postgres
import RegistryCore

/// The device columns every query selects, and their decoding into a `Device`. Values read back
/// are re-validated: a row that no longer parses is a data fault worth failing loudly on.
enum DeviceColumns {
    static let list = """
        user_id, provider, token, type, environment, device_id, platform, app_version, locale, \
        created_at, updated_at, last_seen_at, disabled_reason, disabled_at
        """

    static func device(from row: PostgresRow) throws -> Device {
        try device(from: row, written: nil)
    }

    /// `written`: the registration this row answers, whose user and token strings are reused
    /// when the row holds the same text (validated all the same).
    static func device(from row: PostgresRow, written: DeviceRegistration?) throws -> Device {
        let type = try TokenType(try row.string("type"))
        return Device(
            userID: try UserID(try row.string("user_id", reusing: written?.userID.value)),
            provider: try ProviderName(try row.string("provider")),
            token: try PushToken(type: type, raw: try row.string("token", reusing: written?.token.value)),
            environment: try row["environment"].map { raw throws(ValidationError) in try APNsEnvironment(raw) },
            deviceID: try row["device_id"].map { raw throws(ValidationError) in try DeviceID(raw) },
            platform: try row["platform"].map { raw throws(ValidationError) in try Platform(raw) },
            appVersion: try row["app_version"].map { raw throws(ValidationError) in try AppVersion(raw) },
            locale: try row["locale"].map { raw throws(ValidationError) in try LocaleTag(raw) },
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"),
            lastSeenAt: try row.date("last_seen_at"),
            disabledReason: row["disabled_reason"],
            disabledAt: try row.optionalDate("disabled_at"))
    }
}

/// A token as given in a path or a feedback body. APNs tokens are stored lowercase, so an
/// uppercase hex token still finds its row; FCM tokens are case-sensitive and match only exactly.
struct TokenLookup {
    let exact: String
    let lowercased: String

    init(_ raw: String) {
        exact = raw
        lowercased = raw.lowercased()
    }

    /// `$first` and `$first+1` hold `exact` and `lowercased`.
    static func condition(_ first: Int) -> String {
        "token IN ($\(first), $\(first + 1)) AND (token = $\(first) OR type <> 'fcm')"
    }

    var parameters: [(any PostgresEncodable)?] { [exact, lowercased] }
}
