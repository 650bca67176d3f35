import RegistryCore

/// Runs field checks one after another and keeps every failure, for the validating initialisers
/// that build a value from Swift arguments rather than from a JSON body (`JSONObjectReader` does the
/// same for bodies).
struct ValidationCollector {
    private(set) var errors: [ValidationError] = []

    mutating func check<T>(_ body: () throws(ValidationError) -> T) -> T? {
        do {
            return try body()
        } catch {
            errors.append(error)
            return nil
        }
    }

    mutating func fail(_ error: ValidationError) {
        errors.append(error)
    }

    func finish() throws(ValidationErrors) {
        if !errors.isEmpty { throw ValidationErrors(errors) }
    }
}
