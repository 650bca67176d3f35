import Foundation
import HTTPServer
import NIOCore
import NIOHTTP1

/// Routes exercising every server feature; each echoes what the server handed it.
func testRouter() -> Router {
    var router = Router()
    router.add(.GET, "/hello") { _ in .json(["hello": "world"]) }
    router.add(.GET, "/items/{id}") { request in
        .json(["id": request.pathParameters["id"] ?? "", "q": request.query["q"] ?? ""])
    }
    router.add(.GET, "/items/special") { _ in .json(["special": true]) }
    router.add(.DELETE, "/items/{id}") { _ in .empty(.noContent) }
    router.add(.POST, "/echo", body: .json) { request in
        HTTPResponse(
            status: .ok, headers: ["content-type": "application/json"], body: .bytes(request.body),
            logMetadata: ["echoed_bytes": String(request.body.readableBytes)])
    }
    router.add(.POST, "/big", body: .json, bodyLimit: 4096) { request in
        .json(["bytes": request.body.readableBytes])
    }
    router.add(.POST, "/import", body: .streamed(contentTypes: ["application/x-ndjson"]), bodyLimit: 10_000) {
        request in
        var total = 0
        var chunks = 0
        do {
            for try await chunk in request.bodyStream! {
                total += chunk.readableBytes
                chunks += 1
            }
        } catch {
            return .problem(Problem(status: .badRequest, detail: "body failed"))
        }
        return .json(["bytes": total, "chunks": chunks])
    }
    router.add(.POST, "/either", body: .jsonOrStreamed(streamedTypes: ["application/x-ndjson"]), bodyLimit: 100) {
        request in
        guard let stream = request.bodyStream else { return .json(["whole": request.body.readableBytes]) }
        var total = 0
        do {
            for try await chunk in stream { total += chunk.readableBytes }
        } catch {
            return .problem(Problem(status: .badRequest, detail: "body failed"))
        }
        return .json(["streamed": total])
    }
    router.add(.POST, "/import-unread", body: .streamed(contentTypes: [])) { _ in .empty(.accepted) }
    router.add(.GET, "/slow") { request in
        let millis = Int(request.query["ms"] ?? "300") ?? 300
        try? await Task.sleep(for: .milliseconds(millis))
        return .json(["slept": millis])
    }
    router.add(.GET, "/stream") { request in
        let count = Int(request.query["n"] ?? "3") ?? 3
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        Task {
            for index in 0..<count {
                continuation.yield(ByteBuffer(string: "line \(index)\n"))
                try? await Task.sleep(for: .milliseconds(5))
            }
            continuation.finish()
        }
        return HTTPResponse(status: .ok, headers: ["content-type": "text/plain"], body: .stream(stream))
    }
    router.add(.GET, "/request-id") { request in .json(["request_id": request.requestID]) }
    // Immediate handlers: answered on the loop before returning, or later from another thread.
    router.add(.POST, "/now/echo", body: .json) { request, respond in
        respond { HTTPResponse(status: .ok, headers: ["content-type": "application/json"], body: .bytes(request.body)) }
    }
    router.add(.GET, "/later/{id}") { request, respond in
        let id = request.pathParameters["id"] ?? ""
        Task.detached { respond { .json(["later": id]) } }
    }
    router.add(.GET, "/later-stream") { _, respond in
        Task.detached {
            let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
            respond { HTTPResponse(status: .ok, headers: ["content-type": "text/plain"], body: .stream(stream)) }
            for index in 0..<3 { continuation.yield(ByteBuffer(string: "line \(index)\n")) }
            continuation.finish()
        }
    }
    router.add(.GET, "/boom") { _ in .json(Unencodable()) }
    return router
}

/// Encoding always fails, with a message that must never reach the client.
struct Unencodable: Encodable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            "secret", .init(codingPath: [], debugDescription: "internal detail: db password"))
    }
}
