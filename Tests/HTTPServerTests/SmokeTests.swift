import HTTPServer
import TestSupport
import Testing

@Suite struct SmokeTests {
    @Test func servesJSON() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/hello")
            #expect(response.status == 200)
            #expect(response.body == #"{"hello":"world"}"#)
            #expect(response.header("content-type") == "application/json")
            #expect(response.header("content-length") == "17")
        }
    }
}
