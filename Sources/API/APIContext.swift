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
                response.logKeyID(of: caller!)
                return response
            } catch {
                return GuardedAnswer.problem(for: error, requestID: request.requestID, caller: caller, logger: logger)
            }
        }
    }

    /// `guarded` for a route answered without a task (`Router.add(immediately:)`): `body` runs on
    /// the connection's event loop and hands its outcome to the answer it is given; what it throws
    /// is answered as `guarded` does. A key the cache does not know is looked up in a task first.
    func guardedImmediately(
        _ scope: APIKeyScope, _ body: @escaping @Sendable (HTTPRequest, GuardedAnswer) throws -> Void
    ) -> ImmediateHandler {
        { [authenticator, logger] request, respond in
            @Sendable func run(as caller: Caller) {
                let answer = GuardedAnswer(
                    respond: respond, caller: caller, requestID: request.requestID, logger: logger)
                do { try body(request, answer) } catch { answer { throw error } }
            }
            @Sendable func refuse(_ error: any Error) {
                respond { GuardedAnswer.problem(for: error, requestID: request.requestID, caller: nil, logger: logger) }
            }
            let presented: Authenticator.Presented
            do {
                presented = try authenticator.presented(request, requiring: scope)
            } catch {
                return refuse(error)
            }
            switch presented {
            case .known(let caller):
                run(as: caller)
            case .unknown(let secretDigest):
                Task {
                    do {
                        run(as: try await authenticator.lookUp(secretDigest, for: request, requiring: scope))
                    } catch {
                        refuse(error)
                    }
                }
            }
        }
    }
}
