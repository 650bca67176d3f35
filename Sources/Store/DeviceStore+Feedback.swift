import Foundation
import Postgres
import RegistryCore

extension DeviceStore {
    /// Applies what APNs or FCM said about a token at `reportedAt`. Deleting and disabling are both
    /// guarded by time: a device registered again after the push service's verdict keeps its
    /// fresh registration (`.keptNewer`), so a stale 410 never deletes a new token.
    public func applyFeedback(
        provider: ProviderName, token: String, policy: FeedbackPolicy, reason: String, reportedAt: Date
    ) async throws -> FeedbackAction {
        let change: String
        switch policy {
        case .ignore: return .ignored
        case .deleteIfNotSeenSince:
            change = "DELETE FROM devices d USING target t WHERE d.id = t.id AND t.last_seen_at < $4"
        case .disable:
            change = """
                UPDATE devices d SET disabled_reason = $5, disabled_at = clock_timestamp()
                  FROM target t WHERE d.id = t.id AND t.last_seen_at < $4
                """
        }
        let lookup = TokenLookup(token)
        // $5 (the reason) is only sent when the statement uses it: an unused parameter has no type.
        let row = try await pool.withConnection { connection in
            try connection.queryPrepared(
                """
                WITH target AS (
                    SELECT id, last_seen_at FROM devices
                     WHERE \(TokenLookup.condition(1)) AND provider = $3 FOR UPDATE),
                changed AS (\(change) RETURNING d.id)
                SELECT (SELECT count(*) FROM target)::int AS found, (SELECT count(*) FROM changed)::int AS changed
                """, lookup.parameters + [provider.value, reportedAt] + (policy == .disable ? [reason] : [])
            ).rows[0]
        }
        guard try row.int("found") > 0 else { return .ignored }
        guard try row.int("changed") > 0 else { return .keptNewer }
        return policy == .disable ? .disabled : .deleted
    }

    /// Deletes devices not seen since `cutoff`. No index covers `last_seen_at` (so that a
    /// re-registration is a HOT update), so the prune walks the ids up to today's highest in
    /// windows of `batchSize`: each window is one short transaction that never holds long locks
    /// against registrations, and rows locked by one are skipped (they are being seen again).
    /// Returns how many were deleted.
    public func prune(notSeenSince cutoff: Date, batchSize: Int = 1000) async throws -> Int {
        let highestID = try await pool.withConnection { connection in
            try connection.queryPrepared("SELECT coalesce(max(id), 0) AS id FROM devices").rows[0].int("id")
        }
        var total = 0
        for windowStart in stride(from: 0, to: highestID, by: batchSize) {
            total += try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    DELETE FROM devices WHERE id = ANY (ARRAY(
                        SELECT id FROM devices WHERE id > $1 AND id <= $2 AND last_seen_at < $3
                        FOR UPDATE SKIP LOCKED))
                    """, [windowStart, windowStart + batchSize, cutoff]
                ).affectedRows
            }
        }
        return total
    }
}
