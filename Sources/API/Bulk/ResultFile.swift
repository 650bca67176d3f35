import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A temporary file that collects an import's results, then streams them out once.
///
/// The file is unlinked as soon as it is open, so it never has a name while in use: whatever ends
/// the import (an error, a response head that could not be written, a client gone, the process
/// killed), the kernel frees it with the last descriptor, which closes when this object goes.
/// Every read and write runs on the thread pool, never on the connection's event loop.
final class ResultFile: Sendable {
    /// The names these files have for the instant between creating and unlinking; a crash in that
    /// instant (or a version before the unlinking) leaves one, which `removeLeftovers` deletes.
    static let namePrefix = "device-import-"
    static let chunkSize = 64 * 1024

    private let descriptor: CInt
    private let threadPool: NIOThreadPool

    init(directory: URL = FileManager.default.temporaryDirectory, threadPool: NIOThreadPool = .singleton) async throws {
        self.threadPool = threadPool
        descriptor = try await threadPool.runIfActive {
            let path = directory.appendingPathComponent("\(Self.namePrefix)\(UUID().uuidString).ndjson").path
            // 0600: the results name push tokens.
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "open") }
            unlink(path)
            return descriptor
        }
    }

    deinit {
        close(descriptor)
    }

    func append(_ buffer: ByteBuffer) async throws {
        try await threadPool.runIfActive { [descriptor] in
            try buffer.withUnsafeReadableBytes { bytes in
                var written = 0
                while written < bytes.count {
                    let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                    guard count >= 0 else {
                        if errno == EINTR { continue }
                        throw IOError(errnoCode: errno, reason: "write")
                    }
                    written += count
                }
            }
        }
    }

    /// The results from the start, `chunkSize` at a time. The stream holds this object, so the
    /// file is freed when the stream ends or is dropped unread.
    func stream() -> AsyncStream<ByteBuffer> {
        let offset = NIOLockedValueBox<off_t>(0)
        return AsyncStream(unfolding: { [self] in
            let start = offset.withLockedValue { $0 }
            guard let chunk = try? await threadPool.runIfActive({ try self.read(at: start) }), chunk.readableBytes > 0
            else { return nil }
            offset.withLockedValue { $0 += off_t(chunk.readableBytes) }
            return chunk
        })
    }

    private func read(at offset: off_t) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.chunkSize) { bytes in
            while true {
                let count = pread(descriptor, bytes.baseAddress!, Self.chunkSize, offset)
                if count >= 0 { return count }
                if errno != EINTR { throw IOError(errnoCode: errno, reason: "pread") }
            }
        }
        return buffer
    }

    /// Deletes what `namePrefix` files earlier processes left in `directory`; answers how many.
    @discardableResult
    static func removeLeftovers(in directory: URL = FileManager.default.temporaryDirectory) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(namePrefix) && unlink(directory.appendingPathComponent($0).path) == 0 }
            .count
    }
}
