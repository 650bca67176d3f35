import ArgumentParser
import Encodings
import Foundation
import RegistryCore
import RegistryCrypto
import Store

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Create, list and revoke API keys.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key and print its secret, alone on one line of stdout (shown only this once).")

        @Option(help: "Who or what the key is for, e.g. ops or mobile-backend.") var name: String
        @Option(
            name: .customLong("scope"),
            help: "devices:read, devices:write or admin (admin implies the others); repeatable.")
        var scopes: [APIKeyScope]
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let input = try NewAPIKey(name: name, scopes: scopes)
            let secret = try APIKeySecret.generate()
            let record = try await database.withPool(logger: logger) { pool in
                try await APIKeyStore(pool: pool).create(
                    name: input.name, scopes: input.scopes, secretHash: secret.hashHex)
            }
            FileHandle.standardError.write(
                Data("Created key \(record.id) (\(record.name)). Use it as: Authorization: Bearer <key>\n".utf8))
            print(secret.value)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let keys = try await database.withPool(logger: logger) { try await APIKeyStore(pool: $0).all() }
            print(["ID", "NAME", "SCOPES", "CREATED", "LAST USED", "REVOKED"].joined(separator: "\t"))
            for key in keys {
                print(
                    [
                        key.id, key.name, key.scopes.map(\.rawValue).joined(separator: ","),
                        RFC3339.format(key.createdAt),
                        key.lastUsedAt.map(RFC3339.format) ?? "-", key.revokedAt.map(RFC3339.format) ?? "-",
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key; it is refused from the next request on.")
        @Argument(help: "The key's id (from keys list).") var id: String
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            try await database.withPool(logger: logger) { try await APIKeyStore(pool: $0).revoke(id: id) }
            print("Revoked \(id).")
        }
    }
}

extension APIKeyScope: ExpressibleByArgument {}
