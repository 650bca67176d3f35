import HTTPServer
import TestSupport
import Testing

/// Keep-alive, timeouts, pipelining, `Expect` and HTTP/1.0 over loopback.
@Suite struct ConnectionIntegrationTests {
    @Test func keepAliveReusesTheConnection() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            for id in 1...5 {
                let response = try await client.request("GET", "/items/\(id)")
                #expect(response.status == 200)
                #expect(response.header("connection") == nil)
                #expect((response.json as? [String: Any])?["id"] as? String == "\(id)")
            }
            #expect(!client.isClosedByPeer)
        }
    }

    @Test func idleConnectionsAreClosed() async throws {
        // 1 s leaves a busy machine time between connecting and asking; still far below 60 s.
        try await withLiveServer(.forTests(idleTimeout: .seconds(1))) { server in
            let client = try await server.connect()
            #expect(try await client.request("GET", "/hello").status == 200)
            #expect(try await !client.waitForClose(within: .milliseconds(200)))
            #expect(try await client.waitForClose(within: .seconds(3)))
        }
    }

    @Test func trickledHeadersAreCutOffAtTheHeaderDeadline() async throws {
        try await withLiveServer(.forTests(headerReadTimeout: .milliseconds(300))) { server in
            let client = try await server.connect()
            let start = ContinuousClock.now
            try await client.send("GET /hello HTTP/1.1\r\n")
            // Each line arrives well within the timeout; together they take far longer.
            for index in 0..<30 where !client.isClosedByPeer {
                try? await client.send("X-Slow-\(index): 1\r\n")
                try await Task.sleep(for: .milliseconds(50))
            }
            let response = try await client.readResponse()
            #expect(response.status == 408)
            #expect(response.header("connection") == "close")
            #expect(try await client.waitForClose())
            #expect(ContinuousClock.now - start < .seconds(1.4))
        }
    }

    @Test func stalledBodyIsCutOff() async throws {
        try await withLiveServer(.forTests(bodyReadTimeout: .milliseconds(300))) { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/echo", headers: [("Content-Type", "application/json"), ("Content-Length", "10")]))
            try await client.send("{\"a")
            #expect(try await !client.waitForClose(within: .milliseconds(100)))
            #expect(try await client.waitForClose(within: .seconds(3)))
        }
    }

    @Test func lastAllowedRequestSaysConnectionClose() async throws {
        try await withLiveServer(.forTests(maxRequestsPerConnection: 3)) { server in
            let client = try await server.connect()
            #expect(try await client.request("GET", "/hello").header("connection") == nil)
            #expect(try await client.request("GET", "/hello").header("connection") == nil)
            let last = try await client.request("GET", "/hello")
            #expect(last.status == 200)
            #expect(last.header("connection") == "close")
            #expect(try await client.waitForClose())
        }
    }

    @Test func pipelinedBurstIsAnsweredInOrder() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            var burst: [UInt8] = []
            for id in 0..<50 {
                // Odd ones are slow to finish, so answering as they complete would reorder them.
                let path = id % 7 == 0 ? "/slow?ms=20" : "/items/\(id)"
                burst += HTTPTestClient.requestBytes("GET", path)
            }
            try await client.send(burst)
            for id in 0..<50 {
                let response = try await client.readResponse()
                #expect(response.status == 200)
                if id % 7 == 0 {
                    #expect(response.body == #"{"slept":20}"#)
                } else {
                    #expect((response.json as? [String: Any])?["id"] as? String == "\(id)")
                }
            }
        }
    }

    @Test func expectContinueGets100ThenTheAnswer() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/echo",
                    headers: [
                        ("Content-Type", "application/json"), ("Content-Length", "2"), ("Expect", "100-continue"),
                    ]))
            let interim = try await client.readResponse()
            #expect(interim.status == 100)
            try await client.send("{}")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "{}")
        }
    }

    @Test func expectContinueOverTheLimitGets413Instead() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/echo",
                    headers: [
                        ("Content-Type", "application/json"), ("Content-Length", "5000"), ("Expect", "100-continue"),
                    ]))
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(try await client.waitForClose())
        }
    }

    @Test func unknownExpectationIs417() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request(
                "POST", "/echo", headers: [("Content-Type", "application/json"), ("Expect", "200-ok")])
            #expect(response.status == 417)
        }
    }

    @Test func http10ClosesByDefault() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(HTTPTestClient.requestBytes("GET", "/hello", version: "HTTP/1.0"))
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("connection") == "close")
            #expect(try await client.waitForClose())
        }
    }

    @Test func http10KeepsAliveWhenAsked() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            for _ in 0..<2 {
                try await client.send(
                    HTTPTestClient.requestBytes(
                        "GET", "/hello", headers: [("Connection", "keep-alive")], version: "HTTP/1.0"))
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.header("connection") == "keep-alive")
            }
            #expect(try await !client.waitForClose(within: .milliseconds(100)))
        }
    }

    @Test func connectionCloseRequestIsHonoured() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/hello", headers: [("Connection", "close")])
            #expect(response.header("connection") == "close")
            #expect(try await client.waitForClose())
        }
    }

    @Test func earlyErrorReadsAndDropsTheBodyToKeepTheConnection() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request(
                "POST", "/nowhere", headers: [("Content-Type", "application/json")], body: "{\"x\":1}")
            #expect(response.status == 404)
            #expect(try await client.request("GET", "/hello").status == 200)
        }
    }

    @Test(arguments: [("Transfer-Encoding", "chunked"), ("Content-Length", "5000")])
    func earlyErrorWithABodyNotWorthReadingCloses(framing: (String, String)) async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(HTTPTestClient.requestBytes("POST", "/nowhere", headers: [framing]))
            let response = try await client.readResponse()
            #expect(response.status == 404)
            #expect(response.header("connection") == "close")
            #expect(try await client.waitForClose())
        }
    }
}
