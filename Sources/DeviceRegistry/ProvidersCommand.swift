import API
import ArgumentParser
import CallPush
import Foundation
import PushDelivery
import RegistryCore
import Store

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers", abstract: "Add, list and remove push providers.",
        subcommands: [Add.self, List.self, Remove.self, SetCredentials.self, Reseal.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add or update a provider.")
        @Argument(help: "Provider name: lowercase letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: "apns or fcm.") var service: PushService
        @Option(help: "For apns: the app's bundle id, e.g. com.example.app.") var topic: String?
        @Option(help: "For fcm (optional): the Firebase project id or sender id, used by SIP registrations.")
        var projectId: String?
        @Option(
            help:
                "The payload shape the app parses when its phones ring: stream, dialstack, react-native, flexisip or signalwire (a new provider: stream; an update without it keeps the provider's)."
        )
        var callFormat: CallFormat?
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        /// Like `PUT /v1/providers/{name}`, the provider's own fields are replaced; its call
        /// format (unless given), templates, endpoint and credentials are kept.
        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let provider = try Provider(
                name: try ProviderName(name, field: "name"), service: service, topic: topic, projectID: projectId)
            let (_, created) = try await database.withPool(logger: logger) {
                try await ProviderStore(pool: $0).put(provider, callFormat: callFormat.map(FieldChange.set) ?? .keep)
            }
            print("\(created ? "Added" : "Updated") provider \(name).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List providers.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let providers = try await database.withPool(logger: logger) { try await ProviderStore(pool: $0).all() }
            print(["NAME", "SERVICE", "TOPIC", "PROJECT"].joined(separator: "\t"))
            for stored in providers {
                let provider = stored.provider
                print(
                    [provider.name.value, provider.service.rawValue, provider.topic ?? "-", provider.projectID ?? "-"]
                        .joined(separator: "\t"))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a provider.")
        @Argument(help: "Provider name.") var name: String
        @Flag(help: "Also delete the provider's devices; without it a provider in use is refused.") var cascade = false
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let providerName = try ProviderName(name, field: "name")
            try await database.withPool(logger: logger) {
                try await ProviderStore(pool: $0).delete(providerName, cascade: cascade)
            }
            print("Removed provider \(name).")
        }
    }
    struct SetCredentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-credentials",
            abstract: "Store a provider's push credentials, sealed under REGISTRY_MASTER_KEY.",
            discussion: """
                apns: --p8 FILE --key-id KEY_ID --team-id TEAM_ID (token authentication), or --p12 FILE with its \
                password, if any, in APNS_P12_PASSWORD, or --certificate FILE --private-key FILE (PEM; certificate \
                authentication). fcm: --service-account FILE (the JSON Google issues). The key is checked (it must \
                sign a test message; a certificate's must be its own and the certificate unexpired) before anything \
                is stored.
                """)
        @Argument(help: "Provider name.") var name: String
        @Option(help: "apns: the .p8 key file.") var p8: String?
        @Option(help: "apns: the key's 10-character key id.") var keyId: String?
        @Option(help: "apns: the 10-character Apple team id.") var teamId: String?
        @Option(help: "apns: the client certificate and key as a .p12 file (password in APNS_P12_PASSWORD).")
        var p12: String?
        @Option(help: "apns: the client certificate, PEM (then any intermediates).") var certificate: String?
        @Option(help: "apns: the client certificate's private key, PEM.") var privateKey: String?
        @Option(help: "fcm: the service account JSON file.") var serviceAccount: String?
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let providerName = try ProviderName(name, field: "name")
            let sealer = try MasterKeySetting.sealer()
            try await database.withPool(logger: logger) { pool in
                let service = try await ProviderStore(pool: pool).provider(named: providerName).provider.service
                let credentials = try ProviderCredentials.parse(
                    try credentialsJSON(for: service), service: service, validAt: Date())
                try await ProviderStore(pool: pool).setCredentials(
                    try ProviderCredentialStore(pool: pool, sealer: sealer).replacement(credentials, for: providerName),
                    of: providerName)
                print("Stored the credentials of provider \(name) (key \(try credentials.summary().keyFingerprint)).")
            }
        }

        /// The same JSON `PUT /v1/providers/{name}` takes in `credentials`.
        private func credentialsJSON(for service: PushService) throws -> JSONValue {
            switch service {
            case .apns where p12 != nil || certificate != nil:
                return try certificateJSON()
            case .apns:
                guard let p8, let keyId, let teamId, serviceAccount == nil, privateKey == nil else {
                    throw ConfigurationError(
                        "an apns provider takes --p8, --key-id and --team-id, or --p12, or --certificate and --private-key"
                    )
                }
                return .object([
                    "team_id": .string(teamId), "key_id": .string(keyId),
                    "private_key": .string(try String(contentsOfFile: p8, encoding: .utf8)),
                ])
            case .fcm:
                guard let serviceAccount, p8 == nil, keyId == nil, teamId == nil, p12 == nil, certificate == nil,
                    privateKey == nil
                else {
                    throw ConfigurationError("an fcm provider takes --service-account")
                }
                let text = try String(contentsOfFile: serviceAccount, encoding: .utf8)
                guard let account = try? JSONParser.parse(text) else {
                    throw ConfigurationError("\(serviceAccount) is not JSON")
                }
                return .object(["service_account": account])
            }
        }

        /// APNs certificate authentication; the password stays off the command line (and `ps`).
        private func certificateJSON() throws -> JSONValue {
            guard p8 == nil, keyId == nil, teamId == nil, serviceAccount == nil, (p12 == nil) != (certificate == nil),
                (certificate == nil) == (privateKey == nil)
            else {
                throw ConfigurationError("certificate authentication takes --p12, or --certificate and --private-key")
            }
            if let p12 {
                var fields: [String: JSONValue] = [
                    "pkcs12": .string(try Data(contentsOf: URL(fileURLWithPath: p12)).base64EncodedString())
                ]
                if let password = ProcessInfo.processInfo.environment["APNS_P12_PASSWORD"] {
                    fields["pkcs12_password"] = .string(password)
                }
                return .object(fields)
            }
            return .object([
                "certificate": .string(try String(contentsOfFile: certificate ?? "", encoding: .utf8)),
                "private_key": .string(try String(contentsOfFile: privateKey ?? "", encoding: .utf8)),
            ])
        }
    }

    struct Reseal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Seal every provider's credentials and every device's payload key again under REGISTRY_MASTER_KEY.",
            discussion: """
                To rotate the master key: set REGISTRY_MASTER_KEY to the new key and list the old one in \
                REGISTRY_OLD_MASTER_KEYS (for this command and every running instance), run this, then drop the old key.
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let sealer = try MasterKeySetting.sealer()
            let (credentials, payloadKeys) = try await database.withPool(logger: logger) { pool in
                let store = ProviderCredentialStore(pool: pool, sealer: sealer)
                return (try await store.resealAll(), try await store.payloadKeys.resealAll())
            }
            print(
                "Resealed \(credentials) provider credential\(credentials == 1 ? "" : "s") "
                    + "and \(payloadKeys) payload key\(payloadKeys == 1 ? "" : "s").")
        }
    }
}

extension PushService: ExpressibleByArgument {}
extension CallFormat: ExpressibleByArgument {}
