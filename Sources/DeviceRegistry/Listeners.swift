import API
import HTTPServer
import Logging
import ServiceLifecycle

/// The public listener and, with `--ops-port`, the operations listener: `/readyz` and
/// `/metrics` (provider names, failure reasons, traffic figures) then answer only there, on a
/// port that stays inside the cluster, and `/healthz` on both.
struct Listeners {
    let services: [ServiceGroupConfiguration.ServiceConfiguration]

    init(
        api: RegistryAPI, public: HTTPServerConfiguration, operations: HTTPServerConfiguration?, logger: Logger
    ) {
        let server = HTTPServer(
            configuration: `public`, router: api.router(operationsApart: operations != nil), logger: logger)
        guard let operations else {
            services = [.init(service: server)]
            return
        }
        var opsLogger = logger
        opsLogger[metadataKey: "listener"] = "ops"
        let opsServer = HTTPServer(configuration: operations, router: api.operationsRouter(), logger: opsLogger)
        // The operations listener closes after the public one: /readyz answers through the drain.
        services = [.init(service: opsServer), .init(service: server)]
    }
}
