import Postgres
import RegistryCore

/// The read every push starts with: `POST /v1/push` and call events read each user's devices,
/// at thousands of pushes a second.
extension DeviceStore {
    /// Made once: `devices(of:)` builds its text and its four parameters per call, for filters a
    /// push never sets (the engine filters and orders the targets itself).
    private static let pushTargetsSQL = "SELECT \(DeviceColumns.list) FROM devices WHERE user_id = $1"

    /// Every device of `user`, disabled ones included, in no particular order. From the primary:
    /// who gets a push is decided on what is committed, never on a replica that may not have
    /// replayed a registration yet.
    public func pushTargets(of user: UserID) async throws -> [Device] {
        try await StoreFailure.translating {
            try await reading(strong: true, key: ReadKey.user(user.value), after: nil) { target in
                try await (target === pool ? reads : replicaReads ?? reads).submit((Self.pushTargetsSQL, [user.value]))
            }.rows.map(DeviceColumns.device)
        }
    }
}
