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

    /// Deletes devices not seen since `cutoff`, `batchSize` rows per transaction so a large prune
    /// never holds long locks against registrations. Returns how many were deleted.
    public func prune(notSeenSince cutoff: Date, batchSize: Int = 1000) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    DELETE FROM devices WHERE id IN (
                        SELECT id FROM devices WHERE last_seen_at < $1 ORDER BY last_seen_at LIMIT $2
                        FOR UPDATE SKIP LOCKED)
                    """, [cutoff, batchSize]
                ).affectedRows
            }
            total += deleted
            if deleted < batchSize { return total }
        }
    }
}
