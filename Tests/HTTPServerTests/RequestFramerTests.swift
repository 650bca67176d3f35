import Testing

@testable import HTTPServer

@Suite struct RequestFramerTests {
    private let limits = RequestFramer.Limits(maxRequestLineBytes: 32, maxHeaderBytes: 96, maxHeaderCount: 3)

    private func scan(_ text: String, splitEvery step: Int? = nil) -> [RequestFramer.Event] {
        var framer = RequestFramer(limits: limits)
        let bytes = Array(text.utf8)
        var events: [RequestFramer.Event] = []
        guard let step else {
            framer.scan(bytes) { events.append($0) }
            return events
        }
        var start = 0
        while start < bytes.count {
            let end = min(start + step, bytes.count)
            // Report offsets relative to the whole input, as a handler would see them.
            framer.scan(Array(bytes[start..<end])) { event in
                switch event {
                case .headStarted(let at): events.append(.headStarted(at: at + start))
                case .rejected(let at, let why): events.append(.rejected(at: at + start, why))
                }
            }
            start = end
        }
        return events
    }

    private func rejection(_ events: [RequestFramer.Event]) -> RequestRejection? {
        for case .rejected(_, let why) in events { return why }
        return nil
    }

    @Test func findsEveryPipelinedHead() {
        let get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        let post = "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        let chunked =
            "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: t\r\n\r\n"
        let text = get + post + chunked + get
        let expected: [RequestFramer.Event] = [
            .headStarted(at: 0), .headStarted(at: get.utf8.count), .headStarted(at: (get + post).utf8.count),
            .headStarted(at: (get + post + chunked).utf8.count),
        ]
        #expect(scan(text) == expected)
        #expect(scan(text, splitEvery: 1) == expected)
        #expect(scan(text, splitEvery: 7) == expected)
    }

    @Test func bodyBytesThatLookLikeARequestAreSkipped() {
        let body = "GET /x HTTP/1.1\r\nHost: x\r\n\r\n"
        let text = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        #expect(scan(text) == [.headStarted(at: 0)])
    }

    @Test func leadingEmptyLinesAreTolerated() {
        #expect(scan("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n") == [.headStarted(at: 4)])
    }

    @Test func longRequestLineIs414AsSoonAsItPassesTheLimit() {
        let events = scan("GET /" + String(repeating: "a", count: 40), splitEvery: 5)
        #expect(rejection(events)?.status == .uriTooLong)
        #expect(events.last == .rejected(at: 32, .requestLineTooLong(32)))
    }

    @Test func requestLineAtTheLimitIsFine() {
        let line = "GET /" + String(repeating: "a", count: 18) + " HTTP/1.1"  // 32 bytes
        #expect(rejection(scan(line + "\r\nHost: x\r\n\r\n")) == nil)
    }

    @Test func largeHeaderBlockIs431() {
        let events = scan("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 100))
        #expect(rejection(events) == .headersTooLarge(96))
    }

    @Test func tooManyHeadersIs431() {
        #expect(rejection(scan("GET / HTTP/1.1\r\nHost: x\r\na: 1\r\nb: 2\r\n\r\n")) == nil)
        #expect(rejection(scan("GET / HTTP/1.1\r\nHost: x\r\na: 1\r\nb: 2\r\nc: 3\r\n")) == .tooManyHeaders(3))
    }

    @Test func contentLengthWithTransferEncodingIsRefused() {
        let events = scan("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(rejection(events)?.status == .badRequest)
    }

    @Test(arguments: [
        "Content-Length: 3\r\nContent-Length: 3", "Content-Length: 3, 3", "Content-Length: +3",
        "Content-Length: -1", "Content-Length: ", "content-length: 0x10",
    ])
    func duplicateOrInvalidContentLengthIsRefused(headers: String) {
        #expect(rejection(scan("POST / HTTP/1.1\r\nHost: x\r\n\(headers)\r\n\r\n"))?.status == .badRequest)
    }

    @Test(arguments: ["gzip", "gzip, chunked", "chunked, chunked", "identity"])
    func transferEncodingOtherThanChunkedIsRefused(coding: String) {
        let events = scan("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(coding)\r\n\r\n")
        #expect(rejection(events) == .unsupportedTransferEncoding)
    }

    @Test func twoTransferEncodingHeadersAreRefused() {
        let events = scan(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(rejection(events) == .unsupportedTransferEncoding)
    }

    @Test(arguments: ["Content-Length : 5", "Transfer-Encoding\t: chunked", "X-Any : 1"])
    func whitespaceBeforeTheColonIsRefused(header: String) {
        #expect(rejection(scan("POST / HTTP/1.1\r\nHost: x\r\n\(header)\r\n\r\n"))?.status == .badRequest)
    }

    @Test func obsoleteLineFoldingIsRefused() {
        #expect(rejection(scan("GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n"))?.status == .badRequest)
    }

    @Test(arguments: ["zz\r\n", "\r\n", "1234567890abcdef0\r\n", "3\r\nabcX"])
    func malformedChunksAreRefused(chunk: String) {
        let events = scan("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(chunk)")
        #expect(rejection(events)?.status == .badRequest)
    }

    @Test func oversizedTrailersAre431() {
        let trailers = String(repeating: "t", count: 100)
        let events = scan("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: \(trailers)\r\n\r\n")
        #expect(rejection(events)?.status == .requestHeaderFieldsTooLarge)
    }

    @Test(arguments: ["GET  / HTTP/1.1", "GET / HTTP/1.1 ", " GET / HTTP/1.1", "GET /", "GET / x HTTP/1.1"])
    func requestLineWithOtherThanTwoSingleSpacesIsRefused(line: String) {
        #expect(rejection(scan("\(line)\r\nHost: x\r\n\r\n"))?.status == .badRequest)
    }

    @Test func http11WithoutHostIsRefused() {
        #expect(rejection(scan("GET / HTTP/1.1\r\nX-A: 1\r\n\r\n"))?.status == .badRequest)
        #expect(rejection(scan("GET / HTTP/1.0\r\nX-A: 1\r\n\r\n")) == nil)
    }

    @Test(arguments: ["HTTP/1.1", "HTTP/1.0"])
    func twoHostHeadersAreRefused(version: String) {
        #expect(rejection(scan("GET / \(version)\r\nHost: a\r\nHost: a\r\n\r\n"))?.status == .badRequest)
    }

    @Test(arguments: ["a b", "a/b", "u@h", "h?q", "h#f", "h\u{1}", "caf\u{e9}"])
    func hostThatIsNotAnAuthorityIsRefused(host: String) {
        #expect(rejection(scan("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n"))?.status == .badRequest)
    }

    @Test(arguments: ["", "example.com", "h:8080", "[::1]:80", "10.0.0.1", "a-b.c_d~%41"])
    func hostValuesThatAreAuthoritiesAreFine(host: String) {
        #expect(rejection(scan("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")) == nil)
    }

    @Test func http10WithTransferEncodingIsRefused() {
        let events = scan("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(rejection(events)?.status == .badRequest)
    }

    @Test func framingHeaderValuesAreReadWithoutTheirSpacesAndTabs() {
        let text =
            "POST / HTTP/1.1\r\nHost: \t x.example:80 \t\r\nContent-Length:  2 \r\n\r\nhi"
            + "GET / HTTP/1.1\r\nHost:\r\n\r\n"
        #expect(scan(text) == [.headStarted(at: 0), .headStarted(at: text.utf8.count - 25)])
        #expect(rejection(scan("GET / HTTP/1.1\r\nHost: a b\r\n\r\n"))?.status == .badRequest)
    }

    @Test func nothingIsReportedAfterARejection() {
        var framer = RequestFramer(limits: limits)
        framer.scan(Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n".utf8)) { _ in }
        var after: [RequestFramer.Event] = []
        framer.scan(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) { after.append($0) }
        #expect(after.isEmpty)
    }
}
