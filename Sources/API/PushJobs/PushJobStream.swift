import HTTPServer
import NIOCore
import RegistryCore

/// A `POST /v1/push-jobs` body: NDJSON whose first line is the push as `POST /v1/push` takes it,
/// without `user_ids`, and every further line one user id as a JSON string:
///
/// ```
/// {"apns": {"push_type": "alert", "payload": {"aps": {"alert": "Live now"}}}, "deadline": "1h"}
/// "alice"
/// "bob"
/// ```
///
/// Read as it arrives, `PushJobIntake.chunkSize` users at a time, so memory stays flat for a
/// million users. A bad line fails the whole job (422 naming the line); nothing of it is kept.
struct PushJobStream {
    static let maxLineBytes = 64 * 1024

    let intake: PushJobIntake

    func receive(_ body: RequestBodyStream) async throws -> HTTPResponse {
        var chunks = body.makeAsyncIterator()
        var splitter = LineSplitter(maxLineBytes: Self.maxLineBytes)
        var lines: [LineSplitter.Line] = []
        var next = 0
        var ended = false
        /// The next line, or nil at the end of the body.
        func nextLine() async throws -> LineSplitter.Line? {
            while next == lines.count, !ended {
                if let chunk = try await chunks.next() {
                    lines = splitter.feed(chunk)
                } else {
                    lines = splitter.finish()
                    ended = true
                }
                next = 0
            }
            guard next < lines.count else { return nil }
            defer { next += 1 }
            return lines[next]
        }
        guard let first = try await nextLine() else {
            throw ValidationErrors([ValidationError(field: "line 1", message: "must be the push, as a JSON object")])
        }
        let request = try PushJobRequest.parse(try Self.json(first), streamed: true)
        return try await intake.receive(request) { receiving in
            var users: [UserID] = []
            var count = 0
            while let line = try await nextLine() {
                guard !line.tooLong else {
                    throw ValidationErrors([
                        ValidationError(field: "line \(line.number)", message: "is longer than a user id may be")
                    ])
                }
                do throws(ValidationError) {
                    users.append(try PushJobRequest.user(fromLine: line.bytes, number: line.number))
                } catch {
                    throw ValidationErrors([error])
                }
                count += 1
                guard count <= PushJobRequest.maximumUsers else {
                    throw ValidationErrors([
                        ValidationError(
                            field: "line \(line.number)", message: "passes \(PushJobRequest.maximumUsers) users")
                    ])
                }
                if users.count == PushJobIntake.chunkSize {
                    try await receiving.add(users)
                    users.removeAll(keepingCapacity: true)
                }
            }
            guard count > 0 else {
                throw ValidationErrors([ValidationError(field: "line 2", message: "must be the first user id")])
            }
            try await receiving.add(users)
        }
    }

    private static func json(_ line: LineSplitter.Line) throws -> JSONValue {
        guard !line.tooLong else {
            throw ValidationErrors([
                ValidationError(field: "line \(line.number)", message: "may hold at most \(maxLineBytes) bytes")
            ])
        }
        return try line.bytes.withUnsafeBytes { try RequestReading.json($0) }
    }
}
