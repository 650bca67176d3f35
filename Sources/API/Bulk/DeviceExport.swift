import Foundation
import HTTPServer
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Postgres
import RegistryCore
import Store

/// `GET /v1/devices/export`: every device as one JSON object per line, read a page at a time as
/// the client consumes them, so memory stays flat whatever the table's size. A failure after the
/// first byte can no longer change the status: the stream ends with an `{"error": …}` line.
struct DeviceExport: Sendable {
    static let pageSize = 1000

    let devices: DeviceStore
    /// Every page from the primary (`?consistency=strong`).
    let strong: Bool
    /// The consistency token the client sent back (`Registry-Consistency`).
    let after: WALPosition?
    let logger: Logger

    func stream() -> AsyncStream<ByteBuffer> {
        let cursor = NIOLockedValueBox<ListCursor?>(nil)
        let finished = NIOLockedValueBox(false)
        return AsyncStream(unfolding: {
            guard !finished.withLockedValue({ $0 }) else { return nil }
            do {
                let page = try await devices.list(
                    ListFilter(limit: Self.pageSize, cursor: cursor.withLockedValue { $0 }), strong: strong,
                    after: after)
                cursor.withLockedValue { $0 = page.nextCursor }
                if page.nextCursor == nil { finished.withLockedValue { $0 = true } }
                if page.devices.isEmpty { return nil }
                return DeviceJSON.lines(page.devices)
            } catch {
                finished.withLockedValue { $0 = true }
                let problem = ProblemMapping.problem(for: error, logger: logger)
                return (try? NDJSON.lines([ErrorLine(error: problem)])) ?? ByteBuffer()
            }
        })
    }

    private struct ErrorLine: Encodable { let error: Problem }
}

/// Newline-delimited JSON.
enum NDJSON {
    static let contentType = "application/x-ndjson"
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func lines<T: Encodable>(_ values: [T]) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        for value in values {
            buffer.writeBytes(try encoder.encode(value))
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
        return buffer
    }
}
