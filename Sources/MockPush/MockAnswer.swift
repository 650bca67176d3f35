import Foundation

/// What the mock does with one request: answer after an optional delay, or act on the
/// connection instead.
struct MockAnswer: Sendable {
    var status: Int
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var delay: Duration?
    var connectionAction: MockReply.ConnectionAction?

    static func json(_ status: Int, _ value: some Encodable, headers: [(String, String)] = []) -> MockAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let body = (try? encoder.encode(value)).map(Array.init) ?? []
        return MockAnswer(status: status, headers: headers + [("content-type", "application/json")], body: body)
    }

    static func empty(_ status: Int, headers: [(String, String)] = []) -> MockAnswer {
        MockAnswer(status: status, headers: headers)
    }
}
