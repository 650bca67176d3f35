import Foundation
import HTTPServer
import NIOCore
import PushEngine
import RegistryCore
import Testing

@testable import API

/// `POST /v1/push` answers with `PushResultsBody`'s own JSON; it must be what the server's
/// JSONEncoder wrote for the same results (keys sorted, `null` for absent fields, `/` unescaped).
@Suite("PushResultsJSON")
struct PushResultsJSONTests {
    static func encoded(_ body: PushResultsBody) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(body))
    }

    static func results() throws -> [PushResult] {
        let devices = try DeviceJSONTests.devices()
        var sent = PushResult(device: devices[0]).finished(.sent, reason: nil)
        sent.service_id = "0a1b2c3d-0000-4000-8000-000000000000"
        sent.attempts = 2
        sent.maybe_delivered = true
        var deleted = PushResult(device: devices[1]).finished(.tokenInvalid, reason: "Unregistered / \"gone\"\n")
        deleted.action = .deleted
        var ignored = PushResult(device: devices[0]).finished(.tokenInvalid, reason: "BadDeviceToken")
        ignored.action = .ignored
        return [
            sent, deleted, ignored, PushResult(device: devices[1]).finished(.skipped, reason: "disabled: x\\y"),
            PushResult(device: devices[0]),
        ]
    }

    static func written(_ body: PushResultsBody) -> [UInt8] {
        var buffer = ByteBuffer()
        body.writeJSON(to: &buffer)
        return Array(buffer.readableBytesView)
    }

    @Test func writesWhatJSONEncoderWrote() throws {
        let results = try Self.results()
        for body in [
            PushResultsBody(results: results), PushResultsBody(results: []), PushResultsBody(results: [results[1]]),
        ] {
            #expect(Self.written(body) == (try Self.encoded(body)))
        }
    }

    @Test func responseCarriesTheWrittenJSON() throws {
        let body = PushResultsBody(results: try Self.results())
        let response = HTTPResponse.json(body)
        guard case .bytes(let buffer) = response.body else {
            Issue.record("not a complete body")
            return
        }
        #expect(Array(buffer.readableBytesView) == (try Self.encoded(body)))
        #expect(body.jsonCapacity >= buffer.readableBytes, "the body is allocated once")
        #expect(response.headers["content-type"] == ["application/json"])
    }
}
