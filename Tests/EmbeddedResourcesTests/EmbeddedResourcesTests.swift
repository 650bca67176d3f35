import EmbeddedResources
import Foundation
import Testing

/// The copies compiled into the binary are the repository's files, byte for byte: the build
/// embeds them from the files themselves, and this proves nothing went stale or was mangled.
@Suite struct EmbeddedResourcesTests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func openAPIDocumentIsTheRepositorysFile() throws {
        let file = try Data(contentsOf: Self.repository.appendingPathComponent("openapi.yaml"))
        #expect(!file.isEmpty)
        #expect(Data(EmbeddedResources.openAPIDocument.utf8) == file)
    }

    @Test func migrationsAreTheRepositorysFiles() throws {
        let folder = Self.repository.appendingPathComponent("Migrations")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(!names.isEmpty)
        #expect(EmbeddedResources.migrationFiles.map(\.name) == names)
        for (name, contents) in EmbeddedResources.migrationFiles {
            #expect(Data(contents.utf8) == (try Data(contentsOf: folder.appendingPathComponent(name))), "\(name)")
        }
    }
}
