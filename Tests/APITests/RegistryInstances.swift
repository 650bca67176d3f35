import Foundation
import Postgres
import RegistryCore
import RegistryCrypto
import Store
import TestSupport

/// Several `device-registry serve` processes on one fresh database, each on a port of its own, as
/// a load balancer sees them. They share nothing but the database, as in production. `stop()`
/// ends them with SIGTERM and drops the database.
final class RegistryInstances: Sendable {
    let database: TestDatabase
    let processes: [RegistryProcess]
    let ports: [Int]
    let adminKey: String
    /// Straight to the database, for set-up and for looking at rows.
    let pool: PostgresPool

    private init(
        database: TestDatabase, processes: [RegistryProcess], ports: [Int], adminKey: String, pool: PostgresPool
    ) {
        self.database = database
        self.processes = processes
        self.ports = ports
        self.adminKey = adminKey
        self.pool = pool
    }

    /// `count` instances with the `ios` (APNs) and `android` (FCM) providers and an admin key;
    /// `environment` is added to each one's (USER_DEVICE_CAP, say).
    static func start(count: Int, environment: [String: String] = [:]) async throws -> RegistryInstances {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url, poolSize: 2),
            logger: TestSupport.logger("instances"))
        do {
            let secret = try APIKeySecret.generate()
            _ = try await APIKeyStore(pool: pool).create(name: "admin", scopes: [.admin], secretHash: secret.hashHex)
            let providers = ProviderStore(pool: pool)
            _ = try await providers.put(
                try Provider(name: ProviderName("ios"), service: .apns, topic: "com.example.app"))
            _ = try await providers.put(
                try Provider(name: ProviderName("android"), service: .fcm, projectID: "example-project"))
            let started = try await withThrowingTaskGroup(of: (Int, RegistryProcess, Int).self) { group in
                for index in 0..<count {
                    group.addTask {
                        let (process, port) = try await ProcessTests.serve(database.url, environment)
                        return (index, process, port)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }
            }
            return RegistryInstances(
                database: database, processes: started.map(\.1), ports: started.map(\.2), adminKey: secret.value,
                pool: pool)
        } catch {
            await pool.shutdown()
            await database.drop()
            throw error
        }
    }

    func stop() async {
        for process in processes { process.signal(SIGTERM) }
        for process in processes { try? await process.waitForExit(within: .seconds(15)) }
        await pool.shutdown()
        await database.drop()
    }

    /// One request to instance `instance` (taken modulo the count, so callers can spread requests
    /// with a counter), with the admin key unless `key` is given.
    func request(
        _ instance: Int, _ method: String, _ path: String, key: String? = nil, json: [String: Any]? = nil
    ) async throws -> TestResponse {
        var headers = [("Authorization", "Bearer \(key ?? adminKey)")]
        let body = try json.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let client = try await HTTPTestClient.connect(port: ports[instance % ports.count])
        let response = await Result.of { try await client.request(method, path, headers: headers, body: body) }
        await client.close()
        return try response.get()
    }

    /// `POST /v1/devices` of an APNs token for `user` through `instance`.
    func register(_ instance: Int, user: String, token: String) async throws -> TestResponse {
        try await request(
            instance, "POST", "/v1/devices", json: ["user_id": user, "provider": "ios", "type": "apns", "token": token])
    }

    /// Every device row's token and owner, straight from the database.
    func rows() async throws -> [(token: String, user: String)] {
        try await pool.withConnection { connection in
            try connection.query("SELECT token, user_id FROM devices ORDER BY token").rows.map {
                (try $0.string("token"), try $0.string("user_id"))
            }
        }
    }
}

/// Starts instances, runs `body`, and stops them whether `body` succeeds or throws.
func withRegistryInstances<T>(
    _ count: Int, environment: [String: String] = [:], _ body: (RegistryInstances) async throws -> T
) async throws -> T {
    let instances = try await RegistryInstances.start(count: count, environment: environment)
    let result = await Result.of { try await body(instances) }
    await instances.stop()
    return try result.get()
}
