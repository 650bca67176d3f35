import PushEngine
import RegistryCore
import Testing

@testable import API

/// When a `POST /v1/push` body is a job, and what a job body may say.
@Suite struct PushJobRequestTests {
    static let apns: JSONValue = .object(["push_type": .string("alert"), "payload": .object(["aps": .object([:])])])

    static func body(users: Int, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var object: [String: JSONValue] = [
            "user_ids": .array((0..<users).map { .string("u\($0)") }), "apns": apns,
        ]
        object.merge(extra) { $1 }
        return .object(object)
    }

    @Test func moreThanAThousandUsersOrAsyncMakeAJob() {
        #expect(!PushJobRequest.isJob(Self.body(users: 1000)))
        #expect(PushJobRequest.isJob(Self.body(users: 1001)))
        #expect(PushJobRequest.isJob(Self.body(users: 1, ["async": .bool(true)])))
        #expect(!PushJobRequest.isJob(Self.body(users: 1, ["async": .bool(false)])))
        // Not a boolean: the job's rules name the field.
        #expect(PushJobRequest.isJob(Self.body(users: 1, ["async": .string("yes")])))
        #expect(PushJobRequest.synchronous(Self.body(users: 1, ["async": .bool(false)])) == Self.body(users: 1))
    }

    @Test func aJobKeepsThePushWithoutItsUsersAndTakesALongerDeadline() throws {
        let job = try PushJobRequest.parse(Self.body(users: 1500, ["async": .bool(true), "deadline": .string("2h")]))
        #expect(job.users.count == 1500)
        #expect(job.deadline.seconds == 7200)
        #expect(job.payload.keys.sorted() == ["apns"])
        #expect(try PushJobRequest.parse(Self.body(users: 1)).deadline.seconds == 3600)
    }

    @Test func eachProblemIsNamedByItsField() {
        #expect(throws: ValidationErrors.self) {
            try PushJobRequest.parse(Self.body(users: 1, ["deadline": .string("25h")]))
        }
        do {
            _ = try PushJobRequest.parse(
                .object(["user_ids": .array([.string("ok"), .number(3)]), "apns": .object([:]), "async": .null]))
            Issue.record("accepted")
        } catch {
            let fields = Set(error.errors.map(\.field))
            #expect(fields.isSuperset(of: ["user_ids[1]", "async", "apns.push_type", "apns.payload"]), "\(fields)")
        }
        // The NDJSON header line carries no users; they follow.
        #expect(throws: ValidationErrors.self) { try PushJobRequest.parse(Self.body(users: 1), streamed: true) }
        #expect(throws: ValidationError.self) { try JobLines.user(fromLine: Array("42".utf8), number: 2) }
        #expect((try? JobLines.user(fromLine: Array(#""alice""#.utf8), number: 2))?.value == "alice")
    }
}
