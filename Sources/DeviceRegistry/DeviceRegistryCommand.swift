import ArgumentParser

@main
struct DeviceRegistryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-registry",
        abstract: "Keeps the map from user ids to push tokens (APNs, APNs VoIP, FCM), in PostgreSQL.",
        version: BuildInfo.version,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, KeysCommand.self, ProvidersCommand.self, PruneCommand.self,
            HealthcheckCommand.self,
        ])
}
