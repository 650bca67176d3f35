import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import HTTPServer

@Suite struct ResponseTests {
    private func bodyString(_ response: HTTPResponse) -> String? {
        guard case .bytes(let buffer) = response.body else { return nil }
        return String(buffer: buffer)
    }

    @Test func problemIsRFC9457JSONWithItsHeaders() {
        let problem = Problem(
            status: .unprocessableEntity, detail: "Invalid fields.", type: "https://example.com/validation",
            errors: [FieldError(field: "token", message: "must be hex")], headers: ["retry-after": "5"])
        let response = HTTPResponse.problem(problem)
        #expect(response.status == .unprocessableEntity)
        #expect(response.headers["content-type"] == ["application/problem+json"])
        #expect(response.headers["retry-after"] == ["5"])
        #expect(
            bodyString(response)
                == #"{"detail":"Invalid fields.","errors":[{"field":"token","message":"must be hex"}],"status":422,"title":"Unprocessable Entity","type":"https://example.com/validation"}"#
        )
    }

    @Test func problemTitleDefaultsToTheReasonPhrase() {
        #expect(Problem(status: .tooManyRequests).title == "Too Many Requests")
        #expect(Problem(status: .tooManyRequests, title: "Slow down").title == "Slow down")
    }

    @Test func jsonSetsContentTypeAndKeepsExtraHeaders() {
        let response = HTTPResponse.json(["b": 2, "a": 1], status: .created, headers: ["location": "/x"])
        #expect(response.status == .created)
        #expect(response.headers["content-type"] == ["application/json"])
        #expect(response.headers["location"] == ["/x"])
        #expect(bodyString(response) == #"{"a":1,"b":2}"#)
    }

    @Test func jsonWithACustomEncoder() {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        struct Value: Encodable { var userId = 1 }
        #expect(bodyString(.json(Value(), encoder: encoder)) == #"{"user_id":1}"#)
    }

    @Test func withHeaderReplaces() {
        let response = HTTPResponse.empty(.noContent).withHeader("etag", "1").withHeader("etag", "2")
        #expect(response.headers["etag"] == ["2"])
    }

    @Test func serverOwnsFramingAndConnectionHeaders() {
        let response = HTTPResponse(
            status: .ok, headers: ["content-length": "999", "connection": "upgrade", "transfer-encoding": "gzip"],
            body: .bytes(ByteBuffer(string: "hi")))
        let head = ResponseHead.make(response, version: .http1_1, isHeadRequest: false, requestID: "r", close: false)
        #expect(head.headers["content-length"] == ["2"])
        #expect(head.headers["transfer-encoding"] == [])
        #expect(head.headers["connection"] == [])
        #expect(head.headers["x-request-id"] == ["r"])
    }

    @Test func noContentCarriesNoFraming() {
        let head = ResponseHead.make(
            .empty(.noContent), version: .http1_1, isHeadRequest: false, requestID: "r", close: true)
        #expect(head.headers["content-length"] == [])
        #expect(head.headers["connection"] == ["close"])
    }

    @Test func requestLoggerCarriesTheRequestID() {
        let request = HTTPRequest(method: .GET, path: "/", requestID: "abc")
        #expect(request.logger[metadataKey: "request_id"] == "abc")
    }

    @Test(
        arguments: [
            (RouteBody.json, "application/json", true), (.json, "application/problem+json", true),
            (.json, "application/json;charset=utf-8", true), (.json, "text/json", false), (.json, nil, false),
            (.streamed(contentTypes: ["text/csv"]), "TEXT/CSV; header=present", true),
            (.streamed(contentTypes: ["text/csv"]), "text/plain", false), (.streamed(contentTypes: []), nil, true),
            (.none, "anything/at-all", true),
            (.jsonOrStreamed(streamedTypes: ["application/x-ndjson"]), "application/json", true),
            (.jsonOrStreamed(streamedTypes: ["application/x-ndjson"]), "application/x-ndjson", true),
            (.jsonOrStreamed(streamedTypes: ["application/x-ndjson"]), "text/csv", false),
            (.jsonOrStreamed(streamedTypes: ["application/x-ndjson"]), nil, false),
        ] as [(RouteBody, String?, Bool)])
    func contentTypeRules(body: RouteBody, contentType: String?, accepted: Bool) {
        #expect(body.accepts(contentType: contentType) == accepted)
    }

    @Test func requestIDRules() {
        #expect(RequestID.isAcceptable("a-b_c.1"))
        #expect(RequestID.isAcceptable(String(repeating: "x", count: 128)))
        #expect(!RequestID.isAcceptable(String(repeating: "x", count: 129)))
        #expect(!RequestID.isAcceptable(""))
        #expect(!RequestID.isAcceptable("tab\there"))
        #expect(!RequestID.isAcceptable("é"))
        let generated = RequestID.generate()
        #expect(generated.count == 32 && generated.allSatisfy(\.isHexDigit))
        #expect(RequestID.generate() != generated)
        #expect(RequestID.from(["X-Request-ID": "tab\there"]) != "tab\there")
    }
}
