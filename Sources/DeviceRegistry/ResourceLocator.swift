import EmbeddedResources
import Foundation
import Postgres

/// The files the binary ships with: the migrations and `openapi.yaml` compiled into it (see
/// `Plugins/EmbedResources`), unless an operator names files of their own (`MIGRATIONS_DIR`,
/// `OPENAPI_PATH`). Nothing is looked up beside the executable or in the working directory, so
/// the binary alone, in any folder, is the whole installation.
enum ResourceLocator {
    static func migrations(override folder: String?) throws -> [Migration] {
        do {
            guard let folder else {
                return try Migrator.load(files: EmbeddedResources.migrationFiles.map { ($0.name, $0.contents) })
            }
            guard FileManager.default.fileExists(atPath: folder) else {
                throw ConfigurationError("\(folder) does not exist")
            }
            return try Migrator.load(directory: URL(fileURLWithPath: folder))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("cannot read migrations in \(folder ?? "the binary"): \(error)")
        }
    }

    static func openAPIDocument(override path: String?) throws -> String {
        guard let path else { return EmbeddedResources.openAPIDocument }
        do {
            return try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
        } catch {
            throw ConfigurationError("cannot read \(path): \(error.localizedDescription)")
        }
    }
}
