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
        try await StoreFailure.translating {
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
                let answer = try connection.queryPrepared(
                    """
                    WITH target AS (
                        SELECT id, last_seen_at FROM devices
                         WHERE \(TokenLookup.condition(1)) AND provider = $3 FOR UPDATE),
                    changed AS (\(change) RETURNING d.id)
                    SELECT (SELECT count(*) FROM target)::int AS found, (SELECT count(*) FROM changed)::int AS changed
                    """, lookup.parameters + [provider.value, reportedAt] + (policy == .disable ? [reason] : [])
                ).rows[0]
                try readReplica?.noteCommit(of: [ReadKey.token(token)], on: connection)
                return answer
            }
            guard try row.int("found") > 0 else { return .ignored }
            guard try row.int("changed") > 0 else { return .keptNewer }
            return policy == .disable ? .disabled : .deleted
        }
    }

    /// Deletes devices not seen since `cutoff`. No index covers `last_seen_at` (so that a
    /// re-registration is a HOT update), so the prune walks the table in id order, `batchSize`
    /// rows at a time: each window is one short transaction that never holds long locks against
    /// registrations, and rows locked meanwhile are skipped (they are being seen again). Returns
    /// how many were deleted.
    public func prune(notSeenSince cutoff: Date, batchSize: Int = 1000) async throws -> Int {
        try await StoreFailure.translating {
            precondition(batchSize > 0, "a prune window holds at least one row")
            var total = 0
            var after = 0
            while true {
                let row = try await pool.withConnection { [after] connection in
                    try connection.queryPrepared(
                        """
                        WITH span AS (SELECT id FROM devices WHERE id > $1 ORDER BY id LIMIT $2),
                        deleted AS (
                            DELETE FROM devices WHERE id = ANY (ARRAY(
                                SELECT id FROM devices
                                 WHERE id = ANY (ARRAY(SELECT id FROM span)) AND last_seen_at < $3
                                FOR UPDATE SKIP LOCKED))
                            RETURNING 1)
                        SELECT (SELECT max(id) FROM span) AS span_end, (SELECT count(*) FROM deleted)::int AS deleted
                        """, [after, batchSize, cutoff]
                    ).rows[0]
                }
                total += try row.int("deleted")
                guard let end = row["span_end"].flatMap({ Int($0) }) else {
                    // Whose devices went is not known here: every read waits for the replica.
                    try await readReplica?.noteCommit(of: nil)
                    return total
                }
                after = end
            }
        }
    }
}
