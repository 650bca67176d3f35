import Postgres
import RegistryCore

/// The Store's edge: every failure leaves a store as a `RegistryError`, so no driver type reaches
/// the layers above. Transient database trouble is `.unavailable`; a unique or foreign-key
/// violation nobody mapped to something better is a `.conflict` with another writer; the rest —
/// an answer the code did not expect, a stored row that no longer parses — is `.internal`, with
/// the reason kept for the log.
enum StoreFailure {
    static func domain(_ error: any Error) -> any Error {
        switch error {
        case is RegistryError, is CancellationError:
            return error
        case let error as PostgresError:
            return domain(error)
        case let failure as PipelineFailure:
            return domain(failure.error)
        case let error as ValidationError:
            return RegistryError.internal(reason: "a stored value no longer parses: \(error.field): \(error.message)")
        case let errors as ValidationErrors:
            return RegistryError.internal(reason: "a stored row no longer parses: \(errors.errors)")
        default:
            return RegistryError.internal(reason: String(reflecting: error))
        }
    }

    static func domain(_ error: PostgresError) -> RegistryError {
        switch error {
        case .unavailable, .poolTimeout, .queueFull, .connectionLost, .deadlineExceeded, .serializationFailure,
            .deadlockDetected:
            .unavailable(reason: "\(error)")
        case .uniqueViolation, .foreignKeyViolation:
            .conflict("a concurrent change to the same record won; retry the request")
        case .checkViolation, .decoding, .server:
            .internal(reason: "\(error)")
        }
    }

    /// Runs a store method's body, translating whatever it throws.
    static func translating<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw domain(error)
        }
    }
}
