import NIOCore
import NIOHTTP1
import Testing

@testable import HTTPServer

/// The byte-level checks that replaced lowercased copies and edited header blocks: the same
/// answers as the string forms they replaced.
@Suite struct MediaTypeAndHeadTests {
    @Test(arguments: [
        ("application/json", true), ("Application/JSON; charset=utf-8", true), (" \tapplication/json \t", true),
        ("application/problem+json", true), ("APPLICATION/VND.API+JSON;v=1", true), ("application/+json", true),
        ("application/jsonx", false), ("text/json", false), ("application/", false), ("", false),
        ("application/json\u{301}", false), ("applicatión/x+json", false),
    ])
    func jsonRoutesAcceptWhatTheStringFormAccepts(contentType: String, accepted: Bool) {
        #expect(RouteBody.json.accepts(contentType: contentType) == accepted)
        let type = RouteBody.mediaType(contentType)
        #expect(accepted == (type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))))
    }

    @Test func streamedRoutesCompareMediaTypesInAnyCase() {
        let body = RouteBody.streamed(contentTypes: ["application/x-NDJSON"])
        #expect(body.accepts(contentType: "Application/X-Ndjson; charset=utf-8"))
        #expect(!body.accepts(contentType: "application/x-ndjsonl"))
        #expect(!body.accepts(contentType: nil))
        let either = RouteBody.jsonOrStreamed(streamedTypes: ["application/x-ndjson"])
        #expect(either.streams(contentType: "application/x-ndjson"))
    }

    @Test func theHeadKeepsTheHandlersHeadersInOrderThenTheServersOwn() {
        let response = HTTPResponse(
            status: .ok,
            headers: [
                "X-Request-ID": "theirs", "content-type": "application/json", "Content-Length": "1",
                "connection": "keep-alive", "location": "/x", "Transfer-Encoding": "chunked",
            ],
            body: .bytes(ByteBuffer(string: "{}")))
        let head = ResponseHead.make(response, version: .http1_1, isHeadRequest: false, requestID: "r1", close: true)
        #expect(
            head.headers.map { "\($0.name): \($0.value)" } == [
                "content-type: application/json", "location: /x", "content-length: 2", "x-request-id: r1",
                "connection: close",
            ])
        let kept = ResponseHead.make(response, version: .http1_0, isHeadRequest: false, requestID: "r2", close: false)
        #expect(kept.headers.map(\.name).suffix(3) == ["content-length", "x-request-id", "connection"])
        #expect(kept.headers["connection"] == ["keep-alive"])
    }

    @Test func requestIDsAreThirtyTwoLowercaseHexDigits() {
        let id = RequestID.generate()
        #expect(id.utf8.count == 32)
        #expect(id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        #expect(id != RequestID.generate())
    }
}
