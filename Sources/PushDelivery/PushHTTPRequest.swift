/// One HTTP/2 request to a push service, before framing.
struct PushHTTPRequest: Sendable {
    var path: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// Its answer.
struct PushHTTPResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }
}
