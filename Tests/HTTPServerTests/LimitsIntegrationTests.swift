import HTTPServer
import TestSupport
import Testing

/// Every limit over loopback, answered with its status and a problem body, then closed.
/// (Test limits: request line 1 KiB, headers 2 KiB / 16 lines, body 1 KiB.)
@Suite struct LimitsIntegrationTests {
    private func expectProblemAndClose(
        _ client: HTTPTestClient, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws
    {
        let response = try await client.readResponse()
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.header("content-type") == "application/problem+json", sourceLocation: sourceLocation)
        #expect((response.json as? [String: Any])?["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect(response.header("connection") == "close", sourceLocation: sourceLocation)
        #expect(response.header("x-request-id") != nil, sourceLocation: sourceLocation)
        #expect(try await client.waitForClose(), sourceLocation: sourceLocation)
    }

    @Test func longRequestLineIs414() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            // No line end yet: the answer must not wait for the rest of the line.
            try await client.send("GET /" + String(repeating: "a", count: 1100))
            try await expectProblemAndClose(client, status: 414)
        }
    }

    @Test func largeHeaderBlockIs431() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes("GET", "/hello", headers: [("X-Big", String(repeating: "b", count: 2100))]))
            try await expectProblemAndClose(client, status: 431)
        }
    }

    @Test func tooManyHeadersIs431() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let headers = (1...17).map { ("X-H\($0)", "v") }
            try await client.send(HTTPTestClient.requestBytes("GET", "/hello", headers: headers))
            try await expectProblemAndClose(client, status: 431)
        }
    }

    @Test func sixteenHeadersAreFine() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let headers = (1...15).map { ("X-H\($0)", "v") }  // + Host = 16
            #expect(try await client.request("GET", "/hello", headers: headers).status == 200)
        }
    }

    @Test func declaredBodyOverTheLimitIs413BeforeTheBodyIsSent() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/echo", headers: [("Content-Type", "application/json"), ("Content-Length", "1025")]))
            try await expectProblemAndClose(client, status: 413)
        }
    }

    @Test func chunkedBodyOverTheLimitIs413() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/echo", headers: [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
            let chunk = String(repeating: "x", count: 600)
            try await client.send("258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n")  // 1200 bytes, no final chunk
            try await expectProblemAndClose(client, status: 413)
        }
    }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let body = "\"" + String(repeating: "x", count: 1022) + "\""
            let response = try await client.request(
                "POST", "/echo", headers: [("Content-Type", "application/json")], body: body)
            #expect(response.status == 200)
            #expect(response.body == body)
        }
    }

    @Test func chunkedBodyIsReassembled() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/echo", headers: [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
            try await client.send("4\r\n{\"a\"\r\n")
            try await client.send("3\r\n:1}\r\n0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == #"{"a":1}"#)
        }
    }

    @Test func routeBodyLimitOverridesTheGlobalOne() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let json = [("Content-Type", "application/json")]
            let fits = try await client.request(
                "POST", "/big", headers: json, body: String(repeating: "1", count: 4000))
            #expect(fits.status == 200)
            #expect(fits.body == #"{"bytes":4000}"#)
            let tooBig = try await client.request(
                "POST", "/big", headers: json, body: String(repeating: "1", count: 4097))
            #expect(tooBig.status == 413)
        }
    }

    @Test(arguments: [
        ("application/json", 200), ("application/json; charset=utf-8", 200), ("Application/JSON", 200),
        ("application/merge-patch+json", 200), ("text/plain", 415), ("application/x-ndjson", 415),
        ("application/jsonx", 415),
    ])
    func jsonRoutesAcceptOnlyJSON(contentType: String, status: Int) async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request(
                "POST", "/echo", headers: [("Content-Type", contentType)], body: "{}")
            #expect(response.status == status)
            if status == 415 {
                #expect(response.header("content-type") == "application/problem+json")
                // Refused without reading the handler; the connection stays usable.
                #expect(try await client.request("GET", "/hello").status == 200)
            }
        }
    }

    @Test func jsonRouteWithoutContentTypeIs415() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            #expect(try await client.request("POST", "/echo", body: "{}").status == 415)
        }
    }

    @Test func jsonRouteWithoutBodyNeedsNoContentType() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            #expect(try await client.request("POST", "/echo").status == 200)
        }
    }

    @Test(arguments: [
        "Content-Length: 2\r\nTransfer-Encoding: chunked",
        "Content-Length: 2\r\nContent-Length: 2",
        "Content-Length: 2\r\nContent-Length: 3",
        "Content-Length: 2, 2",
    ])
    func ambiguousFramingIs400AndClose(framing: String) async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(framing)\r\n\r\n{}")
            try await expectProblemAndClose(client, status: 400)
        }
    }

    @Test func unknownTransferCodingIs501AndClose() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")
            try await expectProblemAndClose(client, status: 501)
        }
    }

    /// RFC 9112 §3.2 (llhttp does not check it): a pipelined request after the 400 stays unanswered.
    @Test(arguments: [
        "GET /hello HTTP/1.1\r\n\r\n",
        "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET /hello HTTP/1.1\r\nHost: a/b\r\n\r\n",
        "POST /echo HTTP/1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    ])
    func missingDuplicateOrInvalidHostAndHTTP10ChunkedAre400AndClose(request: String) async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(request + "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            try await expectProblemAndClose(client, status: 400)
        }
    }

    @Test func brokenChunkFramingMidBodyIs400AndClose() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/echo", headers: [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
            try await client.send("2\r\n{}\r\nnot-hex\r\n")
            try await expectProblemAndClose(client, status: 400)
        }
    }

    @Test func garbageIs400AndClose() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send("HELLO THERE\r\n\r\n")
            try await expectProblemAndClose(client, status: 400)
        }
    }

    @Test func aRejectionComesAfterTheAnswersToEarlierPipelinedRequests() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes("GET", "/slow?ms=100") + HTTPTestClient.requestBytes("GET", "/hello")
                    + Array("GET /\(String(repeating: "a", count: 1100)) HTTP/1.1\r\n\r\n".utf8))
            #expect(try await client.readResponse().status == 200)
            #expect(try await client.readResponse().body == #"{"hello":"world"}"#)
            try await expectProblemAndClose(client, status: 414)
        }
    }
}
