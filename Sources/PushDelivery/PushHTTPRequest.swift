import NIOHPACK

/// One HTTP/2 request to a push service, before framing: its whole header block, pseudo-headers
/// first, as the HPACK encoder takes it. The sender builds it once per attempt, in one
/// allocation, and the stream handler frames it as it is: the block was built a second time
/// there, copying every field, and copied once more when the sender added its credential.
struct PushHTTPRequest: Sendable {
    private(set) var headers: HPACKHeaders
    let body: [UInt8]

    /// A POST of `body` to `path` at `authority` (the pool's: `HTTP2ConnectionPool.authority`),
    /// with room for `fields` more header fields (`add`). `pathIsUnique`: the path names one
    /// device (`/3/device/<token>`), so it is sent as a literal without indexing, like a header
    /// marked `.nonIndexable`: a value seen once only churns both ends' HPACK tables, each
    /// insertion evicting the entries that repeat (the provider token, the topic), which then go
    /// out in full again.
    init(authority: String, path: String, pathIsUnique: Bool = false, body: [UInt8], fields: Int) {
        headers = HPACKHeaders()
        headers.reserveCapacity(5 + fields)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":path", value: path, indexing: pathIsUnique ? .nonIndexable : .indexable)
        headers.add(name: ":authority", value: authority)
        headers.add(name: "content-length", value: String(body.count))
        self.body = body
    }

    /// A header field after the pseudo-headers; `.nonIndexable` for a value unique to the request.
    mutating func add(_ name: String, _ value: String, indexing: HPACKIndexing = .indexable) {
        headers.add(name: name, value: value, indexing: indexing)
    }
}

/// Its answer.
struct PushHTTPResponse: Sendable {
    var status: Int
    /// As received, pseudo-headers included.
    var headers: HPACKHeaders
    var body: [UInt8]

    /// Case-insensitive, as HTTP/2 field names are.
    func header(_ name: String) -> String? {
        headers.first(name: name)
    }
}
