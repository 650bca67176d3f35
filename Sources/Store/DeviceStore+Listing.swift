import Foundation
import Postgres
import RegistryCore

/// One page of the admin listing.
public struct DevicePage: Sendable {
    public var devices: [Device]
    /// Where the next page starts; nil on the last page.
    public var nextCursor: ListCursor?
}

extension DeviceStore {
    /// Devices across users in id order, `filter.limit` at a time. Keyset pagination on the
    /// immutable id: rows updated in place keep their place, so paging through a table that is
    /// being written to never repeats or skips a row that existed throughout. `strong` and `after`
    /// as for `devices(of:)`; without a user filter the page waits for every write this instance
    /// has made.
    public func list(_ filter: ListFilter, strong: Bool = false, after token: WALPosition? = nil) async throws
        -> DevicePage
    {
        try await StoreFailure.translating {
            let key = filter.userID.map { ReadKey.user($0.value) }
            let rows = try await reading(strong: strong, key: key, after: token) { target in
                try await target.withConnection { connection in
                    try connection.queryPrepared(
                        """
                        SELECT id, \(DeviceColumns.list) FROM devices
                         WHERE id > $1 AND ($2::text IS NULL OR user_id = $2) AND ($3::text IS NULL OR provider = $3)
                           AND ($4::text IS NULL OR type = $4) AND ($5::text IS NULL OR environment = $5)
                           AND ($6::timestamptz IS NULL OR last_seen_at < $6)
                         ORDER BY id LIMIT $7
                        """,
                        [
                            filter.cursor?.lastID ?? 0, filter.userID?.value, filter.provider?.value,
                            filter.type?.rawValue,
                            filter.environment?.rawValue, filter.seenBefore, filter.limit + 1,
                        ]
                    ).rows
                }
            }
            let page = rows.prefix(filter.limit)
            let next =
                rows.count > filter.limit ? try page.last.map { ListCursor(lastID: Int64(try $0.int("id"))) } : nil
            return DevicePage(devices: try page.map(DeviceColumns.device), nextCursor: next)
        }
    }
}
