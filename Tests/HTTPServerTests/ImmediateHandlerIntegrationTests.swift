import HTTPServer
import TestSupport
import Testing

/// Routes answered without a task (`Router.add(immediately:)`), over loopback.
@Suite struct ImmediateHandlerIntegrationTests {
    @Test func answersMadeAtOnceAndFromOtherThreadsKeepRequestOrder() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            var burst: [UInt8] = []
            for id in 0..<30 {
                switch id % 3 {
                case 0: burst += HTTPTestClient.requestBytes("GET", "/later/\(id)")
                case 1:
                    burst += HTTPTestClient.requestBytes(
                        "POST", "/now/echo", headers: [("Content-Type", "application/json")],
                        body: Array(#"{"now":\#(id)}"#.utf8))
                default: burst += HTTPTestClient.requestBytes("GET", "/items/\(id)")
                }
            }
            try await client.send(burst)
            for id in 0..<30 {
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.header("x-request-id")?.utf8.count == 32)
                switch id % 3 {
                case 0: #expect(response.json as? [String: String] == ["later": "\(id)"])
                case 1: #expect(response.body == #"{"now":\#(id)}"#)
                default: #expect((response.json as? [String: Any])?["id"] as? String == "\(id)")
                }
            }
        }
    }

    @Test func aStreamedAnswerGoesOutChunked() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/later-stream")
            #expect(response.status == 200)
            #expect(response.header("transfer-encoding") == "chunked")
            #expect(response.body == "line 0\nline 1\nline 2\n")
            // The connection goes on after it.
            #expect(try await client.request("GET", "/later/next").json as? [String: String] == ["later": "next"])
        }
    }
}
