import ArgumentParser
import RegistryCore
import Store

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers", abstract: "Add, list and remove push providers.",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add or update a provider.")
        @Argument(help: "Provider name: lowercase letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: "apns or fcm.") var service: PushService
        @Option(help: "For apns: the app's bundle id, e.g. com.example.app.") var topic: String?
        @Option(help: "For fcm (optional): the Firebase project id or sender id, used by SIP registrations.")
        var projectId: String?
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.bootstrap(toStandardError: true)
            let provider = try Provider(
                name: try ProviderName(name, field: "name"), service: service, topic: topic, projectID: projectId)
            let (_, created) = try await database.withPool(logger: logger) {
                try await ProviderStore(pool: $0).put(provider)
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
}

extension PushService: ExpressibleByArgument {}
