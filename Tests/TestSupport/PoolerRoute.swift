import Foundation
import Postgres

extension TestSupport {
    /// `configuration` sent through the connection pooler `TEST_DATABASE_SERVE_URL` names (a
    /// PgBouncer in front of the test cluster, started by `scripts/pgbouncer-check`), or nil when
    /// that is unset or `configuration` is for another server (a test's own cluster). Servers the
    /// tests start use it for their pool; the tests' own set-up, which may hold session locks,
    /// and the key listener stay on the direct connection.
    public static func throughPooler(_ configuration: PostgresConfiguration) -> PostgresConfiguration? {
        guard let pooler = ProcessInfo.processInfo.environment["TEST_DATABASE_SERVE_URL"], !pooler.isEmpty,
            let direct = try? URLComponents(string: serverURL()), let poolerComponents = URLComponents(string: pooler),
            var components = URLComponents(string: configuration.url),
            components.host == direct.host, components.port == direct.port
        else { return nil }
        components.host = poolerComponents.host
        components.port = poolerComponents.port
        var routed = configuration
        routed.url = components.string!
        return routed
    }
}
