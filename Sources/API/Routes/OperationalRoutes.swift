import HTTPServer
import NIOCore

/// Routes for orchestrators and operators; none needs a key.
struct OperationalRoutes: Sendable {
    /// Whether the database answers and its schema is the one this build expects.
    let isReady: @Sendable () async -> Bool
    /// Providers whose credentials the push service refuses: listed, but never a reason to be
    /// unready, since one bad key must not take every instance out of rotation.
    let unhealthyProviders: @Sendable () async -> [(name: String, reason: String)]
    let openAPIDocument: String
    let metricsText: @Sendable () async -> String

    func add(to router: inout Router) {
        router.add(.GET, "/healthz") { _ in .json(StatusBody(status: "ok")) }

        // Ready only when the database answers and its schema is the one this build expects, so
        // a load balancer never routes to an instance that would answer 503 or run on old tables.
        router.add(.GET, "/readyz") { _ in
            guard await isReady() else {
                return .problem(
                    Problem(
                        status: .serviceUnavailable, title: "Not ready",
                        detail: "the database is unreachable or its migrations are not current",
                        headers: ["Retry-After": "\(ProblemMapping.retryAfterSeconds)"]))
            }
            return .json(
                ReadyBody(
                    status: "ready",
                    unhealthy_providers: await unhealthyProviders().map {
                        UnhealthyProvider(name: $0.name, reason: $0.reason)
                    }))
        }

        router.add(.GET, "/openapi.yaml") { _ in
            text(openAPIDocument, contentType: "application/yaml")
        }

        router.add(.GET, "/metrics") { _ in
            text(await metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }

    private func text(_ text: String, contentType: String) -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": contentType], body: .bytes(ByteBuffer(string: text)),
            logMetadata: [:])
    }
}
