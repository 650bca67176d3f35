import Foundation
import NIOConcurrencyHelpers
import Postgres

/// A transaction in a session of its own that holds the locks `statement` takes until
/// `release()`: the long transaction a migration must not queue traffic behind.
public final class HeldLock: Sendable {
    private let gate: PostgresPool
    private let holder: PostgresPool
    private let holding: Task<Void, any Error>
    private let released = NIOLockedValueBox(false)

    /// Returns once the statement ran and its transaction is open, parked on an advisory lock
    /// the gate session holds.
    public static func hold(_ statement: String, url: String) async throws -> HeldLock {
        var configuration = PostgresConfiguration(url: url, poolSize: 1)
        configuration.statementTimeout = .seconds(60)
        let gate = PostgresPool(configuration: configuration, logger: TestSupport.logger("held-lock-gate"))
        let holder = PostgresPool(configuration: configuration, logger: TestSupport.logger("held-lock"))
        let key = Int64.random(in: 1..<Int64(Int32.max))
        _ = try await gate.withConnection { try $0.query("SELECT pg_advisory_lock($1)", [key]) }
        let holding = Task {
            try await holder.withConnection { connection in
                try connection.execute("BEGIN")
                _ = try connection.query(statement)
                _ = try connection.query("SELECT pg_advisory_xact_lock($1)", [key])
                try connection.execute("COMMIT")
            }
        }
        let lock = HeldLock(gate: gate, holder: holder, holding: holding)
        let deadline = ContinuousClock.now + .seconds(10)
        while try await !gate.withConnection({ connection in
            try connection.query(
                "SELECT count(*) > 0 AS parked FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1",
                [key]
            ).rows[0].bool("parked")
        }) {
            guard ContinuousClock.now < deadline else {
                try? await lock.release()
                throw TestSupportError("the lock holder never reached its transaction's end")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return lock
    }

    private init(gate: PostgresPool, holder: PostgresPool, holding: Task<Void, any Error>) {
        self.gate = gate
        self.holder = holder
        self.holding = holding
    }

    /// Ends the transaction (COMMIT) and closes both sessions; once only, later calls do nothing.
    public func release() async throws {
        let first = released.withLockedValue { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        await gate.shutdown()
        let outcome = await holding.result
        await holder.shutdown()
        try outcome.get()
    }
}
