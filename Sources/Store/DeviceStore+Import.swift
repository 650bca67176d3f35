import Postgres
import RegistryCore

extension DeviceStore {
    /// Registers many records set-based (`import_devices()`: no rotation, no per-user cap), all
    /// in one transaction sent in one round trip. Answers each record in order: its result, or
    /// `.unknownProvider` / `.typeNotAccepted`. A token repeated in the input is applied in input
    /// order: the records are cut into statements in which each (token, provider) appears once.
    /// An answer that does not hold exactly one row per record, in order, is `.internal`.
    public func importBatch(_ registrations: [DeviceRegistration]) async throws -> [Result<
        RegistrationResult, RegistryError
    >] {
        guard !registrations.isEmpty else { return [] }
        let chunks = Self.chunksWithoutRepeatedTokens(registrations)
        let statements = chunks.map { chunk in (sql: Self.importSQL, parameters: RegisterStatement.columns(chunk)) }
        return try await StoreFailure.translating {
            let results = try await pool.withConnection { connection in
                let results = try connection.pipelineTransaction(statements)
                try readReplica?.noteCommit(of: registrations.flatMap(ReadKey.of), on: connection)
                return results
            }
            guard results.count == chunks.count else {
                throw RegistryError.internal(
                    reason: "import_devices: \(results.count) answers to \(chunks.count) statements")
            }
            return try zip(chunks, results).flatMap { chunk, result in try Self.outcomes(of: result.rows, for: chunk) }
        }
    }

    /// `import_devices()`'s rows, checked to answer `chunk` one row per record, in order.
    static func outcomes(
        of rows: [PostgresRow], for chunk: [DeviceRegistration]
    ) throws -> [Result<RegistrationResult, RegistryError>] {
        guard rows.count == chunk.count else {
            throw RegistryError.internal(
                reason: "import_devices answered \(rows.count) rows for \(chunk.count) records")
        }
        return try zip(chunk, rows).enumerated().map { index, pair in
            let (registration, row) = pair
            guard try row.int("ord") == index + 1 else {
                throw RegistryError.internal(reason: "import_devices answered out of order at record \(index + 1)")
            }
            switch try row.string("result") {
            case "unknown_provider":
                return .failure(.unknownProvider(field: "provider", name: registration.provider.value))
            case "type_not_accepted":
                return .failure(
                    .typeNotAccepted(
                        field: "type", type: registration.type, provider: registration.provider.value,
                        service: registration.type.service == .apns ? .fcm : .apns))
            case let raw:
                guard let result = RegistrationResult(rawValue: raw) else {
                    throw RegistryError.internal(reason: "unexpected import_devices result \(raw)")
                }
                return .success(result)
            }
        }
    }

    /// How many import batches may commit at once: two, on connections of their own, unless the
    /// pool is too small to spare them beside the group-commit writer.
    public var importParallelism: Int {
        max(1, min(2, pool.configuration.poolSize - pool.configuration.writeConnections))
    }

    static let importSQL =
        "SELECT ord, result, previous_user_id FROM import_devices($1, $2, $3, $4, $5, $6, $7, $8, $9)"

    /// Consecutive runs of records in which no (token, provider) repeats.
    static func chunksWithoutRepeatedTokens(_ registrations: [DeviceRegistration]) -> [[DeviceRegistration]] {
        var chunks: [[DeviceRegistration]] = [[]]
        var seen: Set<String> = []
        for registration in registrations {
            let key = registration.provider.value + "\u{0}" + registration.token.value
            if seen.contains(key) {
                chunks.append([])
                seen.removeAll(keepingCapacity: true)
            }
            seen.insert(key)
            chunks[chunks.count - 1].append(registration)
        }
        return chunks
    }
}
