import HTTPServer
import Postgres
import RegistryCore
import Store

/// `Registry-Consistency`: read-your-writes across instances behind one load balancer. A write to
/// devices answers with the primary's WAL position after its commit; a read that sends it back is
/// served by the read replica only once the replica has replayed that far, else by the primary.
/// Without a replica no token is given, and one sent back changes nothing (every read is of the
/// primary). docs/operating.md ("Read replica") has the whole design.
enum ConsistencyToken {
    static let header = "Registry-Consistency"

    /// The token a read sent back, nil when it sent none; of several headers, the largest.
    /// Anything but a WAL position as a write answered with is refused, naming the header.
    static func sent(in request: HTTPRequest) throws -> WALPosition? {
        let values = request.headers[header]
        guard !values.isEmpty else { return nil }
        let positions = values.compactMap { WALPosition($0) }
        guard positions.count == values.count else {
            throw RegistryError.validation([
                ValidationError(
                    field: header, message: "must be a consistency token as a write answered with, such as 0/16B3748")
            ])
        }
        return positions.max()
    }

    /// `response`, to a write through `devices` that has committed, with the token a read sends
    /// back to see it.
    static func answer(_ response: HTTPResponse, after devices: DeviceStore) -> HTTPResponse {
        guard let token = devices.consistencyToken else { return response }
        return response.withHeader(header, token.description)
    }
}
