import HTTPServer
import PushDelivery
import PushEngine
import RegistryCore
import Store

/// `/v1/providers…` (admin): the named APNs apps and FCM projects tokens belong to.
extension APIContext {
    func addProviderRoutes(to router: inout Router) {
        router.add(
            .PUT, "/v1/providers/{name}", body: .json,
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let write = try ProviderWrite.parse(
                    name: request.pathParameters["name"] ?? "", body: try RequestReading.json(request))
                let (stored, created) = try await providers.put(
                    write.provider, endpoint: write.endpoint.map { $0?.description }, callFormat: write.callFormat,
                    templates: write.templates,
                    credentials: try credentialChange(write.credentials, for: write.provider.name))
                if created { await engine.providerCreated(write.provider.name) }
                return .json(ProviderEnvelope(provider: ProviderBody(stored)), status: created ? .created : .ok)
            })

        router.add(
            .GET, "/v1/providers",
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                return .json(ProvidersBody(providers: try await providers.all().map(ProviderBody.init)))
            })

        router.add(
            .GET, "/v1/providers/{name}",
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let name = try Self.providerName(request)
                return .json(ProviderEnvelope(provider: ProviderBody(try await providers.provider(named: name))))
            })

        router.add(
            .DELETE, "/v1/providers/{name}",
            handler: guarded(.admin) { request, _ in
                let cascade = try RequestReading.flag(
                    try RequestReading.query(request, allowed: ["cascade"]), "cascade")
                let name = try Self.providerName(request)
                try await providers.delete(name, cascade: cascade)
                await engine.providerDeleted(name)
                return ConsistencyToken.answer(.empty(.noContent), after: devices)
            })
    }

    /// An unknown name in the path is simply not there (404), not a validation error.
    private static func providerName(_ request: HTTPRequest) throws -> ProviderName {
        guard let name = try? ProviderName(request.pathParameters["name"] ?? "", field: "name") else {
            throw RegistryError.notFound("provider")
        }
        return name
    }

    private func credentialChange(_ credentials: ProviderWrite.Credentials, for name: ProviderName) throws
        -> CredentialChange
    {
        switch credentials {
        case .keep: .keep
        case .remove: .remove
        case .replace(let credentials): try credentialStore.replacement(credentials, for: name)
        }
    }
}
