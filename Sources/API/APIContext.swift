import Foundation
import HTTPServer
import Logging
import PushEngine
import RegistryCore
import Store

/// What every route needs: the stores it reads and writes itself, the push engine (sending, call
/// events and push jobs), authentication, the logger and the event counters.
struct APIContext: Sendable {
    let devices: DeviceStore
    let providers: ProviderStore
    let credentialStore: ProviderCredentialStore
    let keys: APIKeyStore
    let engine: Engine
    let authenticator: Authenticator
    let events: RegistryEvents
    let logger: Logger

    /// A handler behind `Authorization: Bearer` with `scope`. Whatever `body` throws becomes a
    /// problem response through the one mapping table; the key's id goes to the access log.
    func guarded(
        _ scope: APIKeyScope, _ body: @escaping @Sendable (HTTPRequest, Caller) async throws -> HTTPResponse
    ) -> Handler {
        { request in
            var caller: Caller?
            do {
                caller = try await authenticator.authenticate(request, requiring: scope)
                var response = try await body(request, caller!)
                response.logMetadata["key_id"] = caller!.keyID
                return response
            } catch {
                // Only here: metadata copies the logger's storage, and most requests log nothing.
                var logger = self.logger
                logger[metadataKey: "request_id"] = "\(request.requestID)"
                var response = HTTPResponse.problem(ProblemMapping.problem(for: error, logger: logger))
                if let caller { response.logMetadata["key_id"] = caller.keyID }
                return response
            }
        }
    }
}
