import API
import Foundation
import HTTPServer
import Postgres
import PushDelivery
import PushEngine
import Store
import TestSupport
import Testing

@Suite("Operational routes and the contract")
struct OperationalTests {
    @Test func healthReadinessAndTheServedContract() async throws {
        try await withTestServer { server in
            let health = try await server.request("GET", "/healthz", key: .none)
            #expect(health.status == 200)
            let ready = try await server.request("GET", "/readyz", key: .none)
            #expect(ready.status == 200)
            #expect(ready.object?["status"] as? String == "ready")
            let contract = try await server.request("GET", "/openapi.yaml", key: .none)
            #expect(contract.status == 200)
            #expect(contract.body == (try String(contentsOf: RepositoryPaths.openAPI, encoding: .utf8)))
        }
    }

    @Test func readinessIsFalseWhileMigrationsArePending() async throws {
        try await withTestServer { server in
            _ = try await server.pool.withConnection { try $0.query("DELETE FROM schema_migrations WHERE version = 4") }
            let ready = try await server.request("GET", "/readyz", key: .none)
            #expect(ready.status == 503)
            #expect(ready.header("Retry-After") != nil)
        }
    }

    /// The router and openapi.yaml list the same (method, path) operations.
    @Test func routerAndContractListTheSameOperations() async throws {
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: "postgresql://127.0.0.1:1/none"), logger: .init(label: "x"))
        let credentials = ProviderCredentialStore(pool: pool, sealer: nil)
        let engine = Engine(
            devices: DeviceStore(pool: pool), providers: ProviderStore(pool: pool), credentials: credentials,
            callEvents: CallEventStore(pool: pool), pushJobs: PushJobStore(pool: pool),
            senders: try PushSenderFactory(additionalCAFile: nil), settings: PushJobSettings(),
            logger: .init(label: "x"))
        let router = RegistryAPI(
            devices: DeviceStore(pool: pool), providers: ProviderStore(pool: pool), credentials: credentials,
            keys: APIKeyStore(pool: pool), engine: engine,
            isReady: { false }, configuration: .init(), logger: .init(label: "x"), metricsText: { "" }
        ).router()
        await pool.shutdown()
        let served = Set(router.operations.map { "\($0.method.rawValue) \($0.template)" })
        let documented = try Self.documentedOperations()
        #expect(
            served == documented,
            "only served: \(served.subtracting(documented)); only documented: \(documented.subtracting(served))")
    }

    /// "METHOD /path" for every operation under `paths:` (two-space path keys, four-space methods).
    static func documentedOperations() throws -> Set<String> {
        let text = try String(contentsOf: RepositoryPaths.openAPI, encoding: .utf8)
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if let first = line.first, first != " ", first != "#" { break }  // the next top-level key
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if ["GET", "POST", "PUT", "DELETE", "PATCH"].contains(method) {
                    operations.insert("\(method) \(path)")
                }
            }
        }
        return operations
    }
}
