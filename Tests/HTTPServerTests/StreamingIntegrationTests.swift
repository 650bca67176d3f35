import HTTPServer
import NIOConcurrencyHelpers
import NIOCore
import TestSupport
import Testing

/// Chunked responses and streamed request bodies over loopback.
@Suite struct StreamingIntegrationTests {
    @Test func streamedResponseGoesOutChunked() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/stream?n=4")
            #expect(response.status == 200)
            #expect(response.header("transfer-encoding") == "chunked")
            #expect(response.header("content-length") == nil)
            #expect(response.body == "line 0\nline 1\nline 2\nline 3\n")
            #expect(try await client.request("GET", "/hello").status == 200)  // framing left the connection intact
        }
    }

    @Test func headOfAStreamedResponseHasNoBody() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let response = try await client.request("HEAD", "/stream")
            #expect(response.status == 200)
            #expect(response.header("transfer-encoding") == nil)
            #expect(try await client.request("GET", "/hello").body == #"{"hello":"world"}"#)
        }
    }

    @Test func streamedResponseToHTTP10IsDelimitedByClose() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "GET", "/stream?n=2", headers: [("Connection", "keep-alive")], version: "HTTP/1.0"))
            let response = try await client.readResponse()
            #expect(response.header("connection") == "close")
            #expect(response.body == "line 0\nline 1\n")
        }
    }

    @Test func slowReaderDoesNotMakeTheServerBufferTheStream() async throws {
        // 64 MiB streamed to a client that reads nothing: the handler's producer must be held
        // back by the socket, so it cannot have finished yielding after a short while.
        let produced = ProducedCounter()
        var router = Router()
        router.add(.GET, "/firehose") { _ in
            let (stream, continuation) = AsyncStream.makeStream(
                of: ByteBuffer.self, bufferingPolicy: .bufferingOldest(1))
            Task {
                let chunk = ByteBuffer(repeating: 0x61, count: 64 * 1024)
                for _ in 0..<1024 {
                    // Yield only when the one-slot buffer has room, i.e. when the server took the last chunk.
                    while case .dropped = continuation.yield(chunk) { try? await Task.sleep(for: .milliseconds(1)) }
                    produced.add()
                }
                continuation.finish()
            }
            return HTTPResponse(status: .ok, body: .stream(stream))
        }
        try await withLiveServer(.forTests(shutdownGracePeriod: .milliseconds(200)), router: router) { server in
            let client = try await HTTPTestClient.connect(port: server.port, reads: false)
            try await client.send(HTTPTestClient.requestBytes("GET", "/firehose"))
            try await Task.sleep(for: .milliseconds(500))
            let heldBack = produced.value
            #expect(heldBack < 200)  // far below 1024: socket buffers hold a few MiB at most
            try await client.startReading()
            let deadline = ContinuousClock.now + .seconds(3)
            while produced.value <= heldBack && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(produced.value > heldBack)  // and reading lets it go on
            await client.close()
        }
    }

    @Test func aClientThatStopsReadingIsCutOffAndItsResponseDropped() async throws {
        // 16 MiB to a client that reads nothing: once the socket buffers are full the server's
        // buffer fills, and after the write timeout the connection is closed and the rest dropped.
        var router = Router()
        router.add(.GET, "/firehose") { _ in
            let (stream, continuation) = AsyncStream.makeStream(
                of: ByteBuffer.self, bufferingPolicy: .bufferingOldest(1))
            Task {
                let chunk = ByteBuffer(repeating: 0x61, count: 64 * 1024)
                for _ in 0..<256 {
                    while case .dropped = continuation.yield(chunk) { try? await Task.sleep(for: .milliseconds(1)) }
                }
                continuation.finish()
            }
            return HTTPResponse(status: .ok, body: .stream(stream))
        }
        try await withLiveServer(.forTests(writeTimeout: .milliseconds(500)), router: router) { server in
            let client = try await HTTPTestClient.connect(port: server.port, reads: false)
            try await client.send(HTTPTestClient.requestBytes("GET", "/firehose"))
            try await Task.sleep(for: .seconds(2))
            try await client.startReading()
            // Only what the socket buffers held arrives, then the close; without the timeout the
            // whole 16 MiB would follow and the kept-alive connection stay open.
            #expect(try await client.waitForClose(within: .seconds(10)))
            #expect(client.unreadBytes.count < 16 * 1024 * 1024)
        }
    }

    @Test func streamedRequestBodyArrivesInPieces() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/import",
                    headers: [("Content-Type", "application/x-ndjson"), ("Transfer-Encoding", "chunked")]))
            for _ in 0..<5 {
                try await client.send("6\r\n{}\n{}\n\r\n")
                try await Task.sleep(for: .milliseconds(10))
            }
            try await client.send("0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            let json = response.json as? [String: Int]
            #expect(json?["bytes"] == 30)
            #expect((json?["chunks"] ?? 0) > 1)  // handed over as it came, not collected first
            #expect(try await client.request("GET", "/hello").status == 200)
        }
    }

    @Test func slowConsumerOfARequestBodyHoldsTheClientBack() async throws {
        // The handler reads nothing for a while; the server must stop reading the socket rather
        // than buffer the upload, so the client's 16 MiB cannot all be sent in the meantime.
        var router = Router()
        router.add(.POST, "/sink", body: .streamed(contentTypes: [])) { request in
            try? await Task.sleep(for: .milliseconds(600))
            var total = 0
            do {
                for try await chunk in request.bodyStream! { total += chunk.readableBytes }
            } catch {
                return .problem(Problem(status: .badRequest))
            }
            return .json(["bytes": total])
        }
        let size = 16 * 1024 * 1024
        try await withLiveServer(router: router) { server in
            let client = try await server.connect()
            let sent = ProducedCounter()
            let upload = Task {
                try await client.send(
                    HTTPTestClient.requestBytes("POST", "/sink", body: [UInt8](repeating: 0x7A, count: size)))
                sent.add()
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(sent.value == 0)  // still blocked: the server is not reading
            try await upload.value
            let response = try await client.readResponse()
            #expect(response.json as? [String: Int] == ["bytes": size])
        }
    }

    @Test func streamedRequestBodyOverTheRouteLimitIs413AndClose() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/import",
                    headers: [("Content-Type", "application/x-ndjson"), ("Transfer-Encoding", "chunked")]))
            let chunk = String(repeating: "x", count: 4000)
            try await client.send("fa0\r\n\(chunk)\r\nfa0\r\n\(chunk)\r\nfa0\r\n\(chunk)\r\n")  // 12000 > 10000
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(response.header("content-type") == "application/problem+json")
            #expect(try await client.waitForClose())
        }
    }

    @Test func streamedRouteChecksTheDeclaredLengthFirst() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes(
                    "POST", "/import", headers: [("Content-Type", "application/x-ndjson"), ("Content-Length", "10001")])
            )
            #expect(try await client.readResponse().status == 413)
        }
    }

    @Test func streamedRouteChecksTheContentType() async throws {
        try await withLiveServer { server in
            let response = try await server.connect().request(
                "POST", "/import", headers: [("Content-Type", "application/json")], body: "{}")
            #expect(response.status == 415)
        }
    }

    @Test func aJSONOrStreamedRouteTakesJSONWholeWithinItsLimitAndNDJSONAsItComes() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            let json = try await client.request(
                "POST", "/either", headers: [("Content-Type", "application/json")], body: "[1,2,3]")
            #expect(json.json as? [String: Int] == ["whole": 7])
            // Past the JSON limit of 100 bytes: refused as JSON, taken as NDJSON.
            let lines = String(repeating: "\"user\"\n", count: 50)
            let streamed = try await client.request(
                "POST", "/either", headers: [("Content-Type", "application/x-ndjson")], body: lines)
            #expect(streamed.json as? [String: Int] == ["streamed": lines.utf8.count])
            let tooBig = try await server.connect().request(
                "POST", "/either", headers: [("Content-Type", "application/json")], body: "[" + lines + "]")
            #expect(tooBig.status == 413)
            let other = try await server.connect().request(
                "POST", "/either", headers: [("Content-Type", "text/csv")], body: "a,b")
            #expect(other.status == 415)
        }
    }

    @Test func unreadStreamedBodyClosesTheConnectionAfterTheAnswer() async throws {
        try await withLiveServer { server in
            let client = try await server.connect()
            try await client.send(
                HTTPTestClient.requestBytes("POST", "/import-unread", headers: [("Transfer-Encoding", "chunked")]))
            // The handler may answer and the server close before this part is sent.
            try? await client.send("5\r\nhello\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 202)
            #expect(response.header("connection") == "close")
            #expect(try await client.waitForClose())
        }
    }
}

final class ProducedCounter: Sendable {
    private let count = NIOLockedValueBox(0)
    func add() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}
