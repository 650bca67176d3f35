import HTTPServer
import TestSupport
import Testing

/// `maxConnections`: a connection past the cap is closed at once and counted; the open ones
/// keep working, and a freed place is taken again.
@Suite struct ConnectionCapIntegrationTests {
    @Test func connectionsPastTheCapAreClosedAndCounted() async throws {
        let metrics = RecordingMetricsFactory()
        let server = HTTPServer(
            configuration: .forTests(maxConnections: 2), router: testRouter(), logger: .quiet, metricsFactory: metrics)
        let run = Task { try await server.run() }
        defer { run.cancel() }
        let port = try await server.localAddress.port ?? 0
        let first = try await HTTPTestClient.connect(port: port)
        let second = try await HTTPTestClient.connect(port: port)
        #expect(try await first.request("GET", "/hello").status == 200)
        #expect(try await second.request("GET", "/hello").status == 200)

        let third = try await HTTPTestClient.connect(port: port)
        #expect(try await third.waitForClose(within: .seconds(5)))
        #expect(metrics.counterValue("http_connections_rejected_total", []) == 1)
        #expect(try await first.request("GET", "/hello").status == 200)
        #expect(try await second.request("GET", "/hello").status == 200)

        // A place freed by a close is taken again (the close reaches the server a moment later).
        await first.close()
        var admitted = false
        for _ in 0..<50 where !admitted {
            let next = try await HTTPTestClient.connect(port: port)
            if (try? await next.request("GET", "/hello"))?.status == 200 { admitted = true }
            await next.close()
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(admitted)
        await second.close()
        run.cancel()
        _ = try? await run.value
    }
}
