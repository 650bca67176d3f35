import NIOHPACK

/// One HTTP/2 request to a push service, before framing: its headers already as the HPACK block
/// wants them, so a push's headers are built once and not copied again per frame.
struct PushHTTPRequest: Sendable {
    var path: String
    /// The path names one device (`/3/device/<token>`): sent as a literal without indexing, like
    /// a header marked `.nonIndexable`. A value seen once only churns both ends' HPACK tables:
    /// each insertion evicts the entries that repeat (the provider token, the topic), which then
    /// go out in full again.
    var pathIsUnique = false
    var headers: HPACKHeaders
    var body: [UInt8]
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
