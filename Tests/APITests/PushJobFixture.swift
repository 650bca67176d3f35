import Foundation
import MockPush
import Postgres
import TestSupport

/// Devices and bodies for the push-job suites: `users` users `fan-0…`, even ones with an APNs
/// token on `ios` (`Tokens.apns(i)`; remote for the jobs' alert, `voip` for rings), odd ones with
/// an FCM token on `android` (`Tokens.fcm(i)`), written straight into the database (registering
/// them one request at a time would be most of the test).
enum PushJobFixture {
    static func seedDevices(_ pool: PostgresPool, users: Int, iosTokens: String = "apns") async throws {
        try await pool.withConnection { connection in
            _ = try connection.query(
                """
                INSERT INTO devices (provider, token, type, user_id, environment, created_at, updated_at, last_seen_at)
                SELECT CASE WHEN i % 2 = 0 THEN 'ios' ELSE 'android' END,
                       CASE WHEN i % 2 = 0 THEN lpad(to_hex(i + 4096), 64, '0')
                            ELSE 'fcm-token:' || i || '_abc-DEF.' || i END,
                       CASE WHEN i % 2 = 0 THEN $2 ELSE 'fcm' END,
                       'fan-' || i, CASE WHEN i % 2 = 0 THEN 'production' END, now(), now(), now()
                  FROM generate_series(0, $1 - 1) AS i
                """, [users, iosTokens])
        }
    }

    static func userIDs(_ users: Int) -> [String] { (0..<users).map { "fan-\($0)" } }

    /// An alert: a job never rings (`VoIPPushRule`).
    static var apnsSection: [String: Any] {
        ["push_type": "alert", "priority": 10, "payload": ["aps": ["alert": "Live now"], "event": "live_started"]]
    }
    static var fcmSection: [String: Any] { ["message": ["data": ["event": "live_started"]]] }

    /// A `POST /v1/push` body for every seeded user.
    static func body(users: Int, extra: [String: Any] = [:]) -> [String: Any] {
        var body: [String: Any] = ["user_ids": userIDs(users), "apns": apnsSection, "fcm": fcmSection]
        body.merge(extra) { $1 }
        return body
    }

    /// A `POST /v1/push-jobs` body: the push, then one user id per line.
    static func ndjson(users: Int, extra: [String: Any] = [:]) throws -> String {
        var header: [String: Any] = ["apns": apnsSection, "fcm": fcmSection]
        header.merge(extra) { $1 }
        let first = String(decoding: try JSONSerialization.data(withJSONObject: header), as: UTF8.self)
        return ([first] + userIDs(users).map { "\"\($0)\"" }).joined(separator: "\n") + "\n"
    }

    /// Every push the mock answers (APNs and FCM, up to `times` of them) waits `milliseconds`:
    /// a job then runs long enough to act on half-way.
    static func slowDown(_ mock: MockPushServer, milliseconds: Int, times: Int = 100_000) {
        for service in [MockReply.Service.apns, .fcm] {
            mock.script(MockReply(service: service, delayMilliseconds: milliseconds, times: times))
        }
    }

    /// Pushes the mock received, by device token.
    static func pushesByToken(_ mock: MockPushServer) -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in mock.recordedRequests where request.endpoint != .oauth {
            if let token = request.deviceToken { counts[token, default: 0] += 1 }
        }
        return counts
    }

    static func pushCount(_ mock: MockPushServer) -> Int {
        mock.recordedRequests.filter { $0.endpoint != .oauth }.count
    }

    /// The counts of a job body, and whether they add up to its total.
    static func addsUp(_ job: [String: Any]) -> Bool {
        guard let total = job["total"] as? Int, let counts = job["counts"] as? [String: Int] else { return false }
        return counts.values.reduce(0, +) == total
    }
}
