import NIOConcurrencyHelpers
import Store

/// What the push-job routes and this instance's workers share: the store, the settings, and the
/// jobs cancelled through this instance (its workers stop starting their pushes at once, without
/// waiting for their next lease renewal to read it from the database).
final class PushJobs: Sendable {
    let store: PushJobStore
    let settings: PushJobSettings
    private let cancelledHere = NIOLockedValueBox<Set<String>>([])

    init(store: PushJobStore, settings: PushJobSettings) {
        self.store = store
        self.settings = settings
    }

    func noteCancelled(_ id: String) {
        cancelledHere.withLockedValue { _ = $0.insert(id) }
    }

    func wasCancelledHere(_ id: String) -> Bool {
        cancelledHere.withLockedValue { $0.contains(id) }
    }
}
