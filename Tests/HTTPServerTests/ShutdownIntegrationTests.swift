import HTTPServer
import Logging
import NIOCore
import ServiceLifecycle
import TestSupport
import Testing

/// Graceful shutdown through ServiceLifecycle, as the executable runs the server.
@Suite struct ShutdownIntegrationTests {
    @Test func inFlightRequestFinishesWhileNewConnectionsAreRefused() async throws {
        let started = ProducedCounter()
        var router = testRouter()
        router.add(.GET, "/in-flight") { _ in
            started.add()
            try? await Task.sleep(for: .milliseconds(600))
            return .json(["slept": 600])
        }
        try await withLiveServer(router: router) { server in
            let busy = try await server.connect()
            let idle = try await server.connect()
            #expect(try await idle.request("GET", "/hello").status == 200)

            try await busy.send(HTTPTestClient.requestBytes("GET", "/in-flight"))
            while started.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
            await server.shutDownGracefully()

            #expect(try await idle.waitForClose(within: .seconds(3)))  // idle keep-alive: closed after 0.5 s
            await #expect(throws: (any Error).self) {
                let late = try await HTTPTestClient.connect(port: server.port)
                _ = try await late.request("GET", "/hello")
            }
            let response = try await busy.readResponse()
            #expect(response.status == 200)
            #expect(response.body == #"{"slept":600}"#)
            #expect(response.header("connection") == "close")
            #expect(try await busy.waitForClose())
        }
    }

    @Test func runReturnsAfterTheGracePeriodEvenIfAHandlerHangs() async throws {
        let start = ContinuousClock.now
        try await withLiveServer(.forTests(shutdownGracePeriod: .milliseconds(300))) { server in
            let client = try await server.connect()
            try await client.send(HTTPTestClient.requestBytes("GET", "/slow?ms=20000"))
            try await Task.sleep(for: .milliseconds(100))
            await server.shutDownGracefully()
            #expect(try await client.waitForClose(within: .seconds(5)))
            #expect(client.unreadBytes.isEmpty)  // cut off without an answer
        }
        // withLiveServer waited for run() to return: long before the handler's 20 s were up.
        #expect(ContinuousClock.now - start < .seconds(6))
    }

    @Test func runReturnsAfterTheGracePeriodEvenIfAnImmediateHandlerNeverAnswers() async throws {
        let started = ProducedCounter()
        var router = testRouter()
        router.add(.GET, "/never") { _, _ in started.add() }
        let start = ContinuousClock.now
        try await withLiveServer(.forTests(shutdownGracePeriod: .milliseconds(300)), router: router) { server in
            let client = try await server.connect()
            try await client.send(HTTPTestClient.requestBytes("GET", "/never"))
            try await TestSupport.waitUntil("the handler ran") { started.value == 1 }
            await server.shutDownGracefully()
            #expect(try await client.waitForClose(within: .seconds(5)))
            #expect(client.unreadBytes.isEmpty)  // cut off without an answer
        }
        #expect(ContinuousClock.now - start < .seconds(6))
    }

    @Test func localAddressReportsTheBoundPort() async throws {
        try await withLiveServer { server in
            #expect(server.port > 0)
            let address = try await server.server.localAddress
            #expect(address.port == server.port)
        }
    }

    @Test func bindFailureIsReportedToRunAndLocalAddress() async throws {
        try await withLiveServer { first in
            var configuration = HTTPServerConfiguration.forTests()
            configuration.port = first.port  // already taken
            let second = HTTPServer(configuration: configuration, router: Router(), logger: .quiet)
            await #expect(throws: (any Error).self) { try await second.run() }
            await #expect(throws: (any Error).self) { _ = try await second.localAddress }
        }
    }

    @Test func cancellingRunClosesEverything() async throws {
        let server = HTTPServer(configuration: .forTests(), router: testRouter(), logger: .quiet)
        let run = Task { try await server.run() }
        let port = try await server.localAddress.port ?? 0
        let client = try await HTTPTestClient.connect(port: port)
        #expect(try await client.request("GET", "/hello").status == 200)
        run.cancel()
        _ = try? await run.value
        #expect(try await client.waitForClose(within: .seconds(2)))
    }
}
