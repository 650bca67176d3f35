import HTTPServer
import TestSupport
import Testing

@Suite struct MetricsIntegrationTests {
    @Test func requestsAreCountedAndTimedByRouteTemplate() async throws {
        let metrics = RecordingMetricsFactory()
        let server = HTTPServer(
            configuration: .forTests(), router: testRouter(), logger: .quiet, metricsFactory: metrics)
        let run = Task { try await server.run() }
        let client = try await HTTPTestClient.connect(port: try await server.localAddress.port ?? 0)
        _ = try await client.request("GET", "/items/1")
        _ = try await client.request("GET", "/items/2")
        _ = try await client.request("GET", "/nope")
        // Recording happens just after each response is written; once run() returned, all of it has.
        run.cancel()
        _ = try? await run.value

        let found = [("route", "/items/{id}"), ("method", "GET"), ("status", "200")]
        #expect(metrics.counterValue("http_requests_total", found) == 2)
        #expect(
            metrics.counterValue("http_requests_total", [("route", "unmatched"), ("method", "GET"), ("status", "404")])
                == 1)
        let durations = metrics.timerValues(
            "http_request_duration_seconds", [("route", "/items/{id}"), ("method", "GET")])
        #expect(durations.count == 2)
        #expect(durations.allSatisfy { $0 > 0 })
    }
}
