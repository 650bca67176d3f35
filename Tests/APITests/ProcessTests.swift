import Foundation
import RegistryCrypto
import TestSupport
import Testing

/// The real binary: commands, configuration, logs, metrics and signals.
@Suite("device-registry as a process")
struct ProcessTests {
    /// `serve` on port 0 with JSON logs and no drain at shutdown, over a fresh database; returns
    /// the process and its public port once its database setup is done (or, without
    /// `waitForSetup`, once it listens).
    static func serve(_ databaseURL: String, _ extra: [String: String] = [:], waitForSetup: Bool = true) async throws
        -> (RegistryProcess, Int)
    {
        let server = try RegistryProcess(
            ["serve"],
            environment: [
                "DATABASE_URL": databaseURL, "PORT": "0", "LOG_FORMAT": "json", "SHUTDOWN_DRAIN_SECONDS": "0",
            ].merging(extra) { $1 })
        let port = try await listeningPort(server, listener: nil)
        if waitForSetup { _ = try await server.waitForLine { $0.contains("database setup complete") } }
        return (server, port)
    }

    /// The port of the public listener (`listener` nil) or the operations listener ("ops").
    static func listeningPort(_ server: RegistryProcess, listener: String?) async throws -> Int {
        let listening = try await server.waitForLine { line in
            line.contains("http server listening")
                && (listener.map { line.contains(#""listener":"\#($0)""#) } ?? !line.contains(#""listener":"#))
        }
        let object = try JSONSerialization.jsonObject(with: Data(listening.utf8)) as? [String: Any]
        let address = object?["address"] as? String ?? ""
        guard let port = Int(address.split(separator: ":").last ?? "") else {
            throw TestFailure("no port in \(listening)")
        }
        return port
    }

    static func get(_ port: Int, _ path: String, key: String? = nil) async throws -> TestResponse {
        let client = try await HTTPTestClient.connect(port: port)
        let response = try await client.request(
            "GET", path, headers: key.map { [("Authorization", "Bearer \($0)")] } ?? [])
        await client.close()
        return response
    }

    @Test func keysRoundTripJSONLogsMetricsAndAGracefulStop() async throws {
        let database = try await TestDatabase.create()
        let environment = ["DATABASE_URL": database.url]
        let created = try await RegistryProcess.run(
            ["keys", "create", "--name", "ops", "--scope", "admin"], environment: environment)
        #expect(created.code == 0)
        #expect(created.stdout.count == 1)
        let key = try #require(created.stdout.first)
        #expect(key.hasPrefix("drk_"))
        #expect(
            try await RegistryProcess.run(
                ["providers", "add", "ios", "--service", "apns", "--topic", "com.example.app"], environment: environment
            ).code == 0)

        let (server, port) = try await Self.serve(database.url)
        let client = try await HTTPTestClient.connect(port: port)
        let body = "{\"user_id\":\"alice\",\"provider\":\"ios\",\"type\":\"apns\",\"token\":\"\(Tokens.apns(1))\"}"
        var requestIDs: [String] = []
        for expected in [201, 200] {
            let response = try await client.request(
                "POST", "/v1/devices",
                headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
                body: body)
            #expect(response.status == expected)
            requestIDs.append(response.header("X-Request-ID") ?? "")
        }
        await client.close()

        let metrics = try await Self.get(port, "/metrics")
        #expect(metrics.status == 200)
        let samples = PrometheusText.samples(metrics.body)
        #expect(samples[#"registry_events_total{event="created",provider="ios",type="apns"}"#] == 1)
        #expect(samples[#"registry_events_total{event="unchanged",provider="ios",type="apns"}"#] == 1)
        #expect(samples.keys.contains { $0.hasPrefix("http_requests_total{") && $0.contains(#"route="/v1/devices""#) })
        #expect(!samples.keys.contains { $0.contains("alice") || $0.contains(Tokens.apns(1)) })
        #expect(samples.keys.contains { $0.hasPrefix("db_pool_connections{") })
        #expect(samples.keys.contains { $0.hasPrefix("http_request_duration_seconds_bucket{") })

        let listed = try await RegistryProcess.run(["keys", "list"], environment: environment)
        let keyID = try #require(listed.stdout.dropFirst().first?.split(separator: "\t").first.map(String.init))
        #expect(try await RegistryProcess.run(["keys", "revoke", keyID], environment: environment).code == 0)
        #expect(try await Self.get(port, "/v1/users/alice/devices", key: key).status == 401)

        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(15))
        #expect(server.exitCode == 0)

        let lines = server.stdout.filter { !$0.isEmpty }
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every log line is one JSON object")
        for requestID in requestIDs {
            #expect(
                objects.contains { $0["request_id"] as? String == requestID && $0["route"] as? String == "/v1/devices" }
            )
        }
        #expect(objects.contains { $0["key_id"] as? String == keyID })
        let everything = (server.stdout + server.stderr).joined(separator: "\n")
        #expect(!everything.contains(key) && !everything.contains(Tokens.apns(1)))
        await database.drop()
    }

    @Test(arguments: [
        (["PORT": "http"], "PORT"), (["DB_POOL_SIZE": "0"], "DB_POOL_SIZE"), (["LOG_FORMAT": "xml"], "LOG_FORMAT"),
        (["DATABASE_URL": ""], "DATABASE_URL"), (["REGISTRY_ADMIN_KEY": "letmein"], "REGISTRY_ADMIN_KEY"),
    ])
    func badConfigurationStopsTheStartWithOneClearLine(environment: [String: String], variable: String) async throws {
        let run = try await RegistryProcess.run(
            ["serve"],
            environment: ["DATABASE_URL": "postgresql://127.0.0.1:1/none", "PORT": "0"].merging(environment) { $1 },
            timeout: .seconds(20))
        #expect(run.code != 0)
        let errors = run.stderr.filter { !$0.isEmpty }
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.contains(variable) == true, "\(errors)")
    }

    /// The container's HEALTHCHECK: 0 while /readyz answers 200, non-zero once nothing answers.
    @Test func healthcheckFollowsReadinessAndVersionPrints() async throws {
        let database = try await TestDatabase.create()
        let (server, port) = try await Self.serve(database.url)
        let ready = try await RegistryProcess.run(["healthcheck", "--port", "\(port)"], environment: [:])
        #expect(ready.code == 0, "\(ready.stderr)")
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(30))
        let down = try await RegistryProcess.run(["healthcheck", "--port", "\(port)"], environment: [:])
        #expect(down.code != 0)
        let version = try await RegistryProcess.run(["--version"], environment: [:])
        #expect(version.code == 0)
        #expect(version.stdout.first?.first?.isNumber == true, "\(version.stdout)")
    }

    @Test func registryAdminKeyIsAnAdminKeyFromTheStart() async throws {
        let database = try await TestDatabase.create()
        let secret = try APIKeySecret.generate().value
        let (server, port) = try await Self.serve(database.url, ["REGISTRY_ADMIN_KEY": secret])
        #expect(try await Self.get(port, "/v1/keys", key: secret).status == 200)
        #expect(try await Self.get(port, "/v1/keys", key: "drk_" + String(repeating: "B", count: 43)).status == 401)
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(15))
        let stored = try await RegistryProcess.run(["keys", "list"], environment: ["DATABASE_URL": database.url])
        #expect(stored.stdout.contains { $0.contains("REGISTRY_ADMIN_KEY") && $0.contains("admin") })
        #expect(!stored.stdout.joined().contains(secret))
        await database.drop()
    }

    @Test func serveHelpNamesTheEnvironmentVariableOfEveryOption() async throws {
        let help = try await RegistryProcess.run(["serve", "--help"], environment: [:])
        #expect(help.code == 0)
        let text = help.stdout.joined(separator: "\n")
        let options = text.components(separatedBy: "\n  --").dropFirst().map { $0 }
        #expect(options.count > 20)
        for option in options where !option.hasPrefix("help") && !option.hasPrefix("version") {
            let words = option.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("(env: "), "--\(option.prefix(40))")
        }
    }

    @Test func startsWhileTheDatabaseIsDownAndBecomesReadyWhenItReturns() async throws {
        let cluster = try await ThrowawayCluster.start()
        try await cluster.stop(mode: "fast")
        let (server, port) = try await Self.serve(cluster.url, ["DB_CONNECT_TIMEOUT_MS": "1000"], waitForSetup: false)
        #expect(try await Self.get(port, "/healthz").status == 200)
        #expect(try await Self.get(port, "/readyz").status == 503)
        try await cluster.start()
        let deadline = ContinuousClock.now + .seconds(15)
        var ready = false
        while !ready, ContinuousClock.now < deadline {
            ready = try await Self.get(port, "/readyz").status == 200
            if !ready { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(ready)
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(15))
        await cluster.destroy()
    }
}

/// Just enough of the Prometheus text format for tests: `name{labels} value` per line.
enum PrometheusText {
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
