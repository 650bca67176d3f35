import Foundation
import Store

/// Finished push jobs and their per-device outcomes, kept for `keptFor` seconds.
struct PushJobRetention: Sendable {
    let store: PushJobStore
    let keptFor: TimeInterval
}

extension PruneService {
    /// Deletes jobs finished more than the retention ago, in batches (`PushJobStore.pruneFinished`),
    /// never touching a live job's rows.
    func prunePushJobs() async {
        do {
            let deleted = try await pushJobs.store.pruneFinished(before: Date().addingTimeInterval(-pushJobs.keptFor))
            if deleted > 0 { logger.info("pruned finished push jobs", metadata: ["deleted": "\(deleted)"]) }
        } catch {
            logger.warning("push job prune failed; will try again next time", metadata: ["error": "\(error)"])
        }
    }
}
