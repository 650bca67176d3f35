/// Why a `WaiterQueue` ended a wait, for owners that do not name their own errors.
public enum WaitError: Error, Equatable {
    /// The deadline came before the caller was taken.
    case timedOut
    /// `maximumWaiting` callers were already waiting.
    case full
}
