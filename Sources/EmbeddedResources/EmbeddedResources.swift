import Foundation

/// The files the binary ships with, compiled in at build time from the repository's own
/// `openapi.yaml` and `Migrations/` (see `Plugins/EmbedResources`), so a binary copied alone to
/// any folder still serves its contract and migrates its database.
public enum EmbeddedResources {
    /// `openapi.yaml`, byte for byte.
    public static var openAPIDocument: String {
        String(decoding: decode(GeneratedResources.openAPIDocument), as: UTF8.self)
    }

    /// Every `Migrations/*.sql` file by name, in name order, byte for byte.
    public static var migrationFiles: [(name: String, contents: String)] {
        GeneratedResources.migrations.map { ($0.fileName, String(decoding: decode($0.base64), as: UTF8.self)) }
    }

    private static func decode(_ base64: String) -> Data {
        // The plugin wrote it with Data.base64EncodedString(); it always decodes.
        Data(base64Encoded: base64) ?? Data()
    }
}
