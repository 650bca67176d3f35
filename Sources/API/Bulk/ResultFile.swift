import Foundation
import NIOCore
import Synchronization

/// A temporary file that collects an import's results, then streams them out once and deletes
/// itself.
final class ResultFile: Sendable {
    private let url: URL
    private let handle: Mutex<FileHandle?>

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("device-import-\(UUID().uuidString).ndjson")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        handle = Mutex(try FileHandle(forUpdating: url))
    }

    func append(_ buffer: ByteBuffer) throws {
        try handle.withLock { handle in try handle?.write(contentsOf: Data(buffer.readableBytesView)) }
    }

    /// The results from the start, 64 KiB at a time; the file is gone when the stream ends.
    func stream() throws -> AsyncStream<ByteBuffer> {
        try handle.withLock { handle in try handle?.seek(toOffset: 0) }
        return AsyncStream(
            unfolding: { [self] in
                let chunk = handle.withLock { handle in try? handle?.read(upToCount: 64 * 1024) }
                guard let chunk, !chunk.isEmpty else {
                    discard()
                    return nil
                }
                return ByteBuffer(bytes: chunk)
            }, onCancel: { [self] in discard() })
    }

    func discard() {
        handle.withLock { handle in
            try? handle?.close()
            handle = nil
        }
        try? FileManager.default.removeItem(at: url)
    }
}
