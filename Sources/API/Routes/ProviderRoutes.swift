import HTTPServer
import RegistryCore
import Store

/// `/v1/providers…` (admin): the named APNs apps and FCM projects tokens belong to.
extension APIContext {
    func addProviderRoutes(to router: inout Router) {
        router.add(
            .PUT, "/v1/providers/{name}", body: .json,
            handler: guarded(.admin) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let provider = try Self.provider(
                    named: request.pathParameters["name"] ?? "", body: try RequestReading.json(request))
                let (stored, created) = try await providers.put(provider)
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
                try await providers.delete(try Self.providerName(request), cascade: cascade)
                return .empty(.noContent)
            })
    }

    /// An unknown name in the path is simply not there (404), not a validation error.
    private static func providerName(_ request: HTTPRequest) throws -> ProviderName {
        guard let name = try? ProviderName(request.pathParameters["name"] ?? "", field: "name") else {
            throw RegistryError.notFound("provider")
        }
        return name
    }

    /// The PUT body names the service and its fields; the name comes from the path.
    private static func provider(named name: String, body: JSONValue) throws -> Provider {
        guard case .object(var fields) = body else { return try Provider.parse(body) }
        if fields["name"] != nil {
            throw RegistryError.validation([
                ValidationError(field: "name", message: "is not a body field: the name is in the path")
            ])
        }
        fields["name"] = .string(name)
        return try Provider.parse(.object(fields))
    }
}
