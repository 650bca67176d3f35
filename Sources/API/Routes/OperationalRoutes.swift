import Encodings
import Foundation
import HTTPServer
import NIOCore
import PushDelivery

/// Routes for orchestrators and operators; none needs a key. `/readyz` and `/metrics` may live
/// on a listener of their own (`--ops-port`); `/healthz` answers on every listener, and
/// `/openapi.yaml` on the public one.
struct OperationalRoutes: Sendable {
    /// Whether the database answers and its schema is the one this build expects.
    let isReady: @Sendable () async -> Bool
    let state: ServingState
    /// Providers whose credentials cannot be used (refused by the push service, or not opened
    /// by the master key): listed, but never a reason to be unready, since one bad key must not
    /// take every instance out of rotation.
    let unhealthyProviders: @Sendable () async -> [(name: String, reason: String)]
    /// APNs client certificates and when they expire: listed with their state, never a reason to
    /// be unready either (an expired one fails only its own provider's pushes).
    let certificateExpiries: APNsCertificateExpiries
    let openAPIDocument: String
    let metricsText: @Sendable () async -> String

    func addHealth(to router: inout Router) {
        router.add(.GET, "/healthz") { _ in .json(StatusBody(status: "ok")) }
    }

    func addContract(to router: inout Router) {
        router.add(.GET, "/openapi.yaml") { _ in
            text(openAPIDocument, contentType: "application/yaml")
        }
    }

    func addReadinessAndMetrics(to router: inout Router) {
        // Ready only when set up and not draining, and the database answers with the schema this
        // build expects, so a load balancer never routes to an instance that would answer 503 or
        // run on old tables.
        router.add(.GET, "/readyz") { _ in
            switch state.current {
            case .migrating: return notReady("migrating: the database is being set up (migrations, start-up checks)")
            case .draining: return notReady("draining: the instance is shutting down")
            case .serving: break
            }
            guard await isReady() else {
                return notReady("the database is unreachable or its migrations are not current")
            }
            let now = Date()
            return .json(
                ReadyBody(
                    status: "ready",
                    unhealthy_providers: await unhealthyProviders().map {
                        UnhealthyProvider(name: $0.name, reason: $0.reason)
                    },
                    apns_certificates: certificateExpiries.entries.map {
                        APNsCertificateBody(
                            provider: $0.provider, not_valid_after: RFC3339.format($0.notValidAfter),
                            state: APNsCertificateExpiries.state(of: $0.notValidAfter, at: now).rawValue)
                    }))
        }

        router.add(.GET, "/metrics") { _ in
            text(await metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }

    /// Until the database is set up, a route that needs it answers 503 at once rather than
    /// running against a schema that is still changing.
    func gate(_ route: Route) -> RouteHandler {
        switch route.handler {
        case .task(let handler):
            return .task { [state] request in
                guard state.current == .migrating else { return await handler(request) }
                return .problem(ProblemMapping.problem(for: .starting))
            }
        case .immediate(let handler):
            return .immediate { [state] request, respond in
                guard state.current == .migrating else { return handler(request, respond) }
                respond { .problem(ProblemMapping.problem(for: .starting)) }
            }
        }
    }

    private func notReady(_ detail: String) -> HTTPResponse {
        .problem(ProblemMapping.problem(for: .notReady(reason: detail)))
    }

    private func text(_ text: String, contentType: String) -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": contentType], body: .bytes(ByteBuffer(string: text)),
            logMetadata: [:])
    }
}
