import HTTPServer
import NIOConcurrencyHelpers
import NIOHTTP1
import TestSupport
import Testing

/// Routing, problem responses, HEAD/OPTIONS, request ids and the access log over loopback.
@Suite struct RoutingIntegrationTests {
    @Test func unknownPathIs404Problem() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request("GET", "/nope")
            #expect(response.status == 404)
            #expect(response.header("content-type") == "application/problem+json")
            let problem = response.json as? [String: Any]
            #expect(problem?["type"] as? String == "about:blank")
            #expect(problem?["title"] as? String == "Not Found")
            #expect(problem?["status"] as? Int == 404)
        }
    }

    @Test(arguments: ["PUT", "TRACE", "PATCH"])
    func wrongMethodIs405WithAllow(method: String) async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request(method, "/items/1")
            #expect(response.status == 405)
            #expect(response.header("allow") == "GET, DELETE, HEAD")
            #expect(response.header("content-type") == "application/problem+json")
        }
    }

    @Test func optionsAnswers204WithAllow() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request("OPTIONS", "/items/1")
            #expect(response.status == 204)
            #expect(response.header("allow") == "GET, DELETE, HEAD")
        }
    }

    @Test func literalRouteBeatsParameter() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            #expect(try await client.request("GET", "/items/special").body == #"{"special":true}"#)
            #expect(try await client.request("GET", "/items/other").body == #"{"id":"other","q":""}"#)
        }
    }

    @Test func pathAndQueryAreDecoded() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request("GET", "/items/a%2Fb%20c?q=x+y%26z")
            #expect(response.json as? [String: String] == ["id": "a/b c", "q": "x y&z"])
        }
    }

    /// A 400 closes the connection: a request pipelined after it is never answered.
    @Test(arguments: ["/items/%zz", "/items/1?q=%G1", "/items/%C3", "http://x/hello"])
    func invalidTargetIs400AndClose(target: String) async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes("GET", target) + HTTPTestClient.requestBytes("GET", "/hello"))
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.header("content-type") == "application/problem+json")
            #expect(response.header("connection") == "close")
            #expect(try await client.waitForClose())
        }
    }

    @Test func trailingSlashIsADifferentPath() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request("GET", "/hello/")
            #expect(response.status == 404)
        }
    }

    @Test func headHasGETsHeadersAndNoBody() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let head = try await client.request("HEAD", "/hello")
            #expect(head.status == 200)
            #expect(head.header("content-length") == "17")
            #expect(head.header("content-type") == "application/json")
            #expect(head.bodyBytes.isEmpty)
            // Had a body been sent, it would be read as the next response and break this one.
            let next = try await client.request("GET", "/hello")
            #expect(next.body == #"{"hello":"world"}"#)
            #expect(client.unreadBytes.isEmpty)
        }
    }

    @Test func noContentHasNoBodyOrLength() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request("DELETE", "/items/1")
            #expect(response.status == 204)
            #expect(response.header("content-length") == nil)
            #expect(try await client.request("GET", "/hello").status == 200)
        }
    }

    @Test func encodingFailureIsABare500() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request("GET", "/boom")
            #expect(response.status == 500)
            #expect(!response.body.contains("secret"))
            #expect(!response.body.contains("password"))
            #expect(response.body == #"{"status":500,"title":"Internal Server Error","type":"about:blank"}"#)
        }
    }

    @Test func jsonRequestHelperRoundTrips() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request("POST", "/echo", json: ["name": "x", "n": 1])
            #expect(response.status == 200)
            let echoed = response.json as? [String: Any]
            #expect(echoed?["name"] as? String == "x")
            #expect(echoed?["n"] as? Int == 1)
        }
    }

    @Test func saneRequestIDIsEchoed() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request(
                "GET", "/request-id", headers: [("X-Request-ID", "abc-123_XYZ")])
            #expect(response.header("x-request-id") == "abc-123_XYZ")
            #expect(response.json as? [String: String] == ["request_id": "abc-123_XYZ"])
        }
    }

    @Test(arguments: [String(repeating: "a", count: 129), "bad\u{7F}id", "naïve"])
    func insaneRequestIDIsReplaced(incoming: String) async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request(
                "GET", "/request-id", headers: [("X-Request-ID", incoming)])
            let id = try #require(response.header("x-request-id"))
            #expect(id != incoming)
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        }
    }

    @Test func generatedRequestIDsAreUniqueAndOnServerMadeErrors() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let first = try await client.request("GET", "/nope").header("x-request-id")
            let second = try await client.request("GET", "/nope").header("x-request-id")
            #expect(first != nil && second != nil && first != second)
            let echoed = try await client.request("PUT", "/hello", headers: [("X-Request-ID", "mine")])
            #expect(echoed.header("x-request-id") == "mine")
        }
    }

    @Test func accessLogHasOneLinePerRequestWithoutPathOrQuery() async throws {
        let logs = CapturedLogs()
        try await withLiveServer(logger: logs.logger(label: "recording")) { server in
            let client = try await server.connect()
            _ = try await client.request(
                "POST", "/echo?token=SECRET",
                headers: [("Content-Type", "application/json"), ("X-Request-ID", "rid-1")],
                body: "{}")
            _ = try await client.request("GET", "/items/SECRET-TOKEN", headers: [("X-Request-ID", "rid-2")])
            _ = try await client.request("GET", "/nope/SECRET", headers: [("X-Request-ID", "rid-3")])
        }
        let lines = logs.all.filter { $0.message == "request" }
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.level == .info })
        #expect(lines.map { $0.metadata["request_id"] } == ["rid-1", "rid-2", "rid-3"])
        #expect(lines.map { $0.metadata["route"] } == ["/echo", "/items/{id}", "unmatched"])
        #expect(lines.map { $0.metadata["status"] } == ["200", "200", "404"])
        #expect(lines.map { $0.metadata["method"] } == ["POST", "GET", "GET"])
        #expect(lines.allSatisfy { Double($0.metadata["duration_ms"] ?? "") != nil })
        #expect(lines.first?.metadata["echoed_bytes"] == "2")  // the response's logMetadata
        for entry in logs.all {
            #expect(!entry.message.contains("SECRET"))
            #expect(!entry.metadata.values.contains { $0.contains("SECRET") })
        }
    }

    @Test func observerSeesEveryCompletedRequest() async throws {
        final class Observer: RequestObserver {
            let seen = NIOLockedValueBox<[CompletedRequest]>([])
            func requestCompleted(_ request: CompletedRequest) { seen.withLockedValue { $0.append(request) } }
        }
        let observer = Observer()
        try await withLiveServer(observer: observer) { server in
            let client = try await server.connect()
            _ = try await client.request("GET", "/items/7", headers: [("X-Request-ID", "obs")])
            _ = try await client.request("GET", "/nope")
        }
        let seen = observer.seen.withLockedValue { $0 }
        #expect(seen.map(\.routeTemplate) == ["/items/{id}", "unmatched"])
        #expect(seen.map(\.status) == [.ok, .notFound])
        #expect(seen.first?.requestID == "obs")
        #expect(seen.first?.method == .GET)
    }
}
