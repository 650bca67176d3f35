import CallPush
import HTTPServer
import NIOCore
import PushEngine
import RegistryCore

/// A job's NDJSON body (`POST /v1/push-jobs`, and `POST /v1/push` or `POST /v1/call-events`
/// sent as `application/x-ndjson`): the first line says what to send, as the JSON route takes
/// it without `user_ids`, and every further line is one user id as a JSON string:
///
/// ```
/// {"apns": {"push_type": "alert", "payload": {"aps": {"alert": "Live now"}}}, "deadline": "1h"}
/// "alice"
/// "bob"
/// ```
///
/// Read as it arrives, `Engine.usersPerChunk` users at a time, so memory stays flat for a
/// million users. A bad line fails the whole job (422 naming the line); nothing of it is kept.
struct JobLines {
    /// The media types such a body may be sent as.
    static let contentTypes = [NDJSON.contentType, "application/jsonl"]
    static let maxLineBytes = 64 * 1024
    /// What `POST /v1/push` and `POST /v1/call-events` may carry as JSON: some 200,000 user ids.
    /// More go as NDJSON, which is read as it streams.
    static let jsonBodyLimit = 4 * 1024 * 1024
    /// The same million for pushes and call events.
    static let maximumUsers = CallEvent.maxJobUsers
    /// Lines a body may hold, blank ones included: room for as many blank lines as users, and no
    /// more, so a stream of newlines alone is cut off.
    static let maximumLines = 2 * maximumUsers + 1

    private var chunks: RequestBodyStream.AsyncIterator
    private var splitter = LineSplitter(maxLineBytes: maxLineBytes)
    private var lines: [LineSplitter.Line] = []
    private var next = 0
    private var ended = false
    private var users = 0

    init(_ body: RequestBodyStream) {
        chunks = body.makeAsyncIterator()
    }

    /// The first line, as JSON.
    mutating func header() async throws -> JSONValue {
        guard let line = try await nextLine() else {
            throw ValidationErrors([
                ValidationError(
                    field: "line \(splitter.linesEnded + 1)", message: "must say what to send, as a JSON object")
            ])
        }
        guard !line.tooLong else {
            throw ValidationErrors([
                ValidationError(field: "line \(line.number)", message: "may hold at most \(Self.maxLineBytes) bytes")
            ])
        }
        let header = try line.bytes.withUnsafeBytes { try RequestReading.json($0) }
        guard header.objectValue != nil else {
            throw ValidationErrors([
                ValidationError(field: "line \(line.number)", message: "must be a JSON object, not \(header.typeName)")
            ])
        }
        return header
    }

    /// The next users, at most `Engine.usersPerChunk`; nil at the end of the body. At least
    /// one user must follow the header, at most `maximumUsers`.
    mutating func nextUsers() async throws -> [UserID]? {
        var batch: [UserID] = []
        while batch.count < Engine.usersPerChunk, let line = try await nextLine() {
            guard !line.tooLong else {
                throw ValidationErrors([
                    ValidationError(field: "line \(line.number)", message: "is longer than a user id may be")
                ])
            }
            do throws(ValidationError) {
                batch.append(try Self.user(fromLine: line.bytes, number: line.number))
            } catch {
                throw ValidationErrors([error])
            }
            users += 1
            guard users <= Self.maximumUsers else {
                throw ValidationErrors([
                    ValidationError(field: "line \(line.number)", message: "passes \(Self.maximumUsers) users")
                ])
            }
        }
        if users == 0 {
            throw ValidationErrors([
                ValidationError(field: "line \(splitter.linesEnded + 1)", message: "must be the first user id")
            ])
        }
        return batch.isEmpty ? nil : batch
    }

    private mutating func nextLine() async throws -> LineSplitter.Line? {
        while next == lines.count, !ended {
            if let chunk = try await chunks.next() {
                lines = splitter.feed(chunk)
                try checkBounds()
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

    /// A line that grows past its limit, or a flood of blank lines, is refused as it comes: a
    /// stream that never ends a line, or never says anything, would otherwise be read for ever.
    private func checkBounds() throws {
        if splitter.readingTooLongLine {
            throw ValidationErrors([
                ValidationError(
                    field: "line \(splitter.linesEnded + 1)", message: "may hold at most \(Self.maxLineBytes) bytes")
            ])
        }
        if splitter.linesEnded > Self.maximumLines {
            throw ValidationErrors([
                ValidationError(
                    field: "line \(Self.maximumLines + 1)",
                    message: "passes \(Self.maximumLines) lines, blank ones included")
            ])
        }
    }

    /// One user id: a JSON string on its own line.
    static func user(fromLine bytes: [UInt8], number: Int) throws(ValidationError) -> UserID {
        let field = "line \(number)"
        let value = try? bytes.withUnsafeBytes { try JSONParser.parse($0) }
        guard let raw = value?.stringValue else {
            throw ValidationError(field: field, message: "must be a user id as a JSON string")
        }
        return try UserID(raw, field: field)
    }
}
