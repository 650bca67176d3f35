/// A statement of `pipelineTransaction` failed, so none of them took effect.
public struct PipelineFailure: Error, Sendable, Equatable {
    /// Position of the first failing statement; `statements.count` when the COMMIT itself failed.
    public let index: Int
    public let error: PostgresError

    public init(index: Int, error: PostgresError) {
        self.index = index
        self.error = error
    }
}
