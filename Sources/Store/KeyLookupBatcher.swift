import Postgres
import RegistryCore
import Synchronization

/// Reads the keys of concurrent requests in one query instead of one query each. Lookups that
/// arrive while a lookup runner is busy wait in a queue; a free runner (at most `maxRunners`)
/// takes everything waiting, up to `maxBatch`, and reads those keys together. No timer: at low
/// load a lookup goes alone.
///
/// A key revoked before a request arrived is still refused on that request: a batch is taken
/// only after each of its lookups was queued, so its query's snapshot is later than the arrival
/// of every request in it. That is the contract of reading the key's row on every request, at a
/// fraction of the round trips (under load, one query per batch instead of one per request).
final class KeyLookupBatcher: Sendable {
    struct StoredKey: Sendable {
        let id: String
        let scopes: Set<APIKeyScope>
    }

    private struct Waiting {
        let secretHash: String
        let continuation: CheckedContinuation<StoredKey?, any Error>
    }

    private struct State {
        var queue: [Waiting] = []
        var runners = 0
    }

    /// `last_used_at` is written at most once a minute per key, so a lookup stays a read.
    static let sql = """
        WITH key AS (
            SELECT id, secret_hash, scopes, last_used_at FROM api_keys
             WHERE secret_hash = ANY ($1::text[]) AND revoked_at IS NULL),
        touched AS (
            UPDATE api_keys a SET last_used_at = clock_timestamp() FROM key k
             WHERE a.id = k.id AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute'))
        SELECT secret_hash, id::text AS id, scopes FROM key
        """

    let pool: PostgresPool
    let maxBatch: Int
    let maxRunners: Int
    private let state = Mutex(State())

    init(pool: PostgresPool, maxBatch: Int = 256, maxRunners: Int = 2) {
        self.pool = pool
        self.maxBatch = maxBatch
        self.maxRunners = maxRunners
    }

    /// The live key with this secret hash, or nil (unknown or revoked).
    func find(secretHash: String) async throws -> StoredKey? {
        try await withCheckedThrowingContinuation { continuation in
            let startRunner = state.withLock { state in
                state.queue.append(Waiting(secretHash: secretHash, continuation: continuation))
                guard state.runners < maxRunners else { return false }
                state.runners += 1
                return true
            }
            if startRunner { Task { await drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state in
                let batch = Array(state.queue.prefix(maxBatch))
                state.queue.removeFirst(batch.count)
                if batch.isEmpty { state.runners -= 1 }
                return batch
            }
            if batch.isEmpty { return }
            await run(batch)
        }
    }

    private func run(_ batch: [Waiting]) async {
        let hashes = Array(Set(batch.map(\.secretHash)))
        do {
            let found = try await pool.withConnection { connection in
                var keys: [String: StoredKey] = [:]
                for row in try connection.queryPrepared(Self.sql, [hashes]).rows {
                    keys[try row.string("secret_hash")] = StoredKey(
                        id: try row.string("id"),
                        scopes: Set(try row.stringArray("scopes").compactMap(APIKeyScope.init(rawValue:))))
                }
                return keys
            }
            for waiting in batch { waiting.continuation.resume(returning: found[waiting.secretHash]) }
        } catch {
            for waiting in batch { waiting.continuation.resume(throwing: error) }
        }
    }
}
