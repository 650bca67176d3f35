import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import API

@Suite("Import result file")
struct ResultFileTests {
    @Test func streamsBackWhatWasAppendedAndNeverHasAName() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await ResultFile(directory: directory)
        let line = String(repeating: "x", count: 1000) + "\n"
        for _ in 0..<100 { try await file.append(ByteBuffer(string: line)) }
        // Nothing to leak however the import ends: the file is already gone from the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        var read = ""
        for await chunk in file.stream() { read += String(buffer: chunk) }
        #expect(read == String(repeating: line, count: 100))
    }

    @Test func fileWorkRunsOnTheThreadPool() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        try await pool.shutdownGracefully()
        // Nothing is opened on the caller's thread (the connection's event loop).
        await #expect(throws: CancellationError.self) {
            try await ResultFile(directory: directory, threadPool: pool)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func leftoversOfEarlierProcessesAreRemoved() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["\(ResultFile.namePrefix)1.ndjson", "\(ResultFile.namePrefix)2.ndjson", "other.ndjson"] {
            #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: nil))
        }
        #expect(ResultFile.removeLeftovers(in: directory) == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["other.ndjson"])
    }

    private static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("result-file-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return directory
    }
}
