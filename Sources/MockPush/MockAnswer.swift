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
        // Milliseconds: `scripts/bench ring --faults` times rings by when the mock took them.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
        }
        let body = (try? encoder.encode(value)).map(Array.init) ?? []
        return MockAnswer(status: status, headers: headers + [("content-type", "application/json")], body: body)
    }

    static func empty(_ status: Int, headers: [(String, String)] = []) -> MockAnswer {
        MockAnswer(status: status, headers: headers)
    }
}
