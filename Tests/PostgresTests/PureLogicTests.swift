import Foundation
import Testing

@testable import Postgres

@Suite struct TimestampTests {
    @Test func formatsUTCWithMicroseconds() {
        let date = Date(timeIntervalSince1970: 1_714_979_289.123456)
        #expect(PostgresTimestamp.format(date) == "2024-05-06T07:08:09.123456Z")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500000Z")
    }

    @Test func parsesServerOutput() throws {
        let expected = "2024-02-29T23:59:59.123456Z"
        #expect(reformat("2024-02-29 23:59:59.123456+00") == expected)
        #expect(reformat("2024-03-01 05:29:59.123456+05:30") == expected)
        #expect(reformat("2024-02-29T23:59:59.123456Z") == expected)
        #expect(reformat("2024-02-29 23:59:59.1234567+00") == expected, "digits past microseconds are dropped")
        #expect(reformat("2024-02-29 23:59:59+00") == "2024-02-29T23:59:59.000000Z")
        #expect(reformat("2024-02-29 23:59:59.5-01") == "2024-03-01T00:59:59.500000Z")
        #expect(reformat("1900-01-01 00:00:00+00") == "1900-01-01T00:00:00.000000Z")
    }

    @Test func roundTripsMicroseconds() throws {
        let date = Date(timeIntervalSince1970: 1_714_979_289.123456)
        let again = try #require(PostgresTimestamp.parse(PostgresTimestamp.format(date)))
        #expect(PostgresTimestamp.format(again) == PostgresTimestamp.format(date))
        #expect(abs(again.timeIntervalSince(date)) < 0.000_000_5)
    }

    private func reformat(_ text: String) -> String? {
        PostgresTimestamp.parse(text).map(PostgresTimestamp.format)
    }

    @Test func rejectsWhatIsNotATimestamp() {
        for text in [
            "infinity", "-infinity", "2024-02-29", "2024-13-01 00:00:00+00", "2024-02-29 23:59:59.+00", "",
            "2024-02-31 00:00:00+00", "2023-02-29 00:00:00+00", "2024-04-31 00:00:00+00", "2024-02-29 23:59:60+00",
            "2024-02-29 23:59:59+24",
        ] {
            #expect(PostgresTimestamp.parse(text) == nil, "\(text)")
        }
    }
}

@Suite struct ArrayLiteralTests {
    @Test func parsesQuotedAndBareElements() {
        #expect(PostgresArrayLiteral.parse("{}") == [])
        #expect(
            PostgresArrayLiteral.parse(#"{a,"b,c","d\"e","f\\g","",NULLx,"NULL"}"#)
                == ["a", "b,c", "d\"e", "f\\g", "", "NULLx", "NULL"])
        #expect(PostgresArrayLiteral.parse("{日本,שלום}") == ["日本", "שלום"])
    }

    @Test func refusesNullsNestingAndGarbage() {
        for text in ["{a,NULL}", "{{a},{b}}", "{a", "a}", #"{"a}"#, "{a,}", "[1:1]={a}"] {
            #expect(PostgresArrayLiteral.parse(text) == nil, "\(text)")
        }
    }

    @Test func formatsEveryElementQuoted() {
        #expect(PostgresArrayLiteral.format([]) == "{}")
        #expect(PostgresArrayLiteral.format(["a", "b\"c", "d\\e", ""]) == #"{"a","b\"c","d\\e",""}"#)
    }

    /// Arrays of strings take a shortcut past the generic element conversion: same text.
    @Test func arraysOfAnyElementTypeWriteTheSameLiteral() {
        let strings: any PostgresEncodable = ["a", "b\"c", ""] as [String]
        let optionals: any PostgresEncodable = ["a", nil, "d\\e"] as [String?]
        let numbers: any PostgresEncodable = [1, 22] as [Int]
        let nested: any PostgresEncodable = [Int64(3), nil] as [Int64?]
        #expect(strings.postgresText == #"{"a","b\"c",""}"#)
        #expect(optionals.postgresText == #"{"a",NULL,"d\\e"}"#)
        #expect(numbers.postgresText == #"{"1","22"}"#)
        #expect(nested.postgresText == #"{"3",NULL}"#)
        #expect(([] as [String]).postgresText == "{}")
    }
}

/// The group commit's lock names: a prefix inside the element's quotes, no String made for it.
@Suite struct PrefixedArrayLiteralTests {
    @Test func writesEachPrefixInsideItsElementsQuotes() {
        let literal = PostgresArrayLiteral.format { write in
            write("", "user")
            write("token:", "ab\"c")
            write("", nil)
            write("t\\", "")
        }
        #expect(literal == #"{"user","token:ab\"c",NULL,"t\\"}"#)
        #expect(PostgresArrayLiteral.format { _ in } == "{}")
    }
}

/// A value read back as it was written is the written String itself, not a copy of the bytes.
@Suite struct ReusedStringTests {
    @Test func returnsTheKnownStringWhenTheColumnHoldsItsText() throws {
        var written = String(repeating: "a1", count: 32)  // past the small-string size: on the heap
        let row = PostgresRow(columns: ["token": 0, "other": 1], values: [written, "b"])
        var read = try row.string("token", reusing: written)
        let writtenAddress = written.withUTF8 { $0.baseAddress }
        #expect(read.withUTF8 { $0.baseAddress } == writtenAddress)
        #expect(try row.string("other", reusing: written) == "b")
        #expect(try row.string("other", reusing: nil) == "b")
        #expect(throws: PostgresError.self) { try row.string("missing", reusing: written) }
    }
}

@Suite struct MigrationChecksumTests {
    @Test func isTheHexSHA256OfTheSQL() {
        #expect(
            Migration(version: 1, name: "a", sql: "abc").checksum
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Migration(version: 1, name: "a", sql: "").checksum
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}

@Suite struct ConnectBackoffTests {
    let start = ContinuousClock.now

    /// Replays `steps` (milliseconds after `start`, action) and returns what each returned.
    private func replay(_ steps: [(Int, Action)]) -> [Bool] {
        var backoff = ConnectBackoff()
        return steps.map { milliseconds, action in
            let now = start + .milliseconds(milliseconds)
            switch action {
            case .connect: return backoff.mayConnect(at: now)
            case .fail: return backoff.failed(at: now)
            case .succeed: return backoff.succeeded()
            }
        }
    }

    private enum Action { case connect, fail, succeed }

    @Test func everyoneConnectsWhileHealthy() {
        #expect(replay([(0, .connect), (0, .connect)]) == [true, true])
    }

    @Test func oneProbePerWindowAfterAFailure() {
        let outcomes = replay([
            (0, .fail),  // starts the outage
            (49, .connect), (50, .connect),
            (51, .connect),  // a probe is already running
            (60, .fail),  // the window doubles to 100 ms
            (159, .connect), (160, .connect),
            (170, .succeed),  // ends the outage
            (171, .connect),
        ])
        #expect(outcomes == [true, false, true, false, false, false, true, true, true])
    }

    @Test func windowIsCappedAtOneSecond() {
        var steps: [(Int, Action)] = [(0, .fail)]
        for round in 1...10 { steps += [(round * 2000, .connect), (round * 2000, .fail)] }
        steps += [(20_999, .connect), (21_000, .connect)]
        #expect(replay(steps).suffix(2) == [false, true])
    }

    @Test func callersThatFailTogetherCountOnce() {
        // The second failure is a caller that had started connecting before the outage.
        #expect(replay([(0, .fail), (0, .fail), (50, .connect)]) == [true, false, true])
    }
}

@Suite struct ErrorMappingTests {
    @Test func mapsSQLStates() {
        #expect(PostgresError(sqlstate: "23505", constraint: "c", message: "") == .uniqueViolation(constraint: "c"))
        #expect(PostgresError(sqlstate: "23514", constraint: nil, message: "") == .checkViolation(constraint: nil))
        #expect(PostgresError(sqlstate: "23503", constraint: "f", message: "") == .foreignKeyViolation(constraint: "f"))
        #expect(PostgresError(sqlstate: "40001", constraint: nil, message: "") == .serializationFailure)
        #expect(PostgresError(sqlstate: "40P01", constraint: nil, message: "") == .deadlockDetected)
        #expect(PostgresError(sqlstate: "57014", constraint: nil, message: "") == .deadlineExceeded)
        for sqlstate in ["08006", "08003", "57P01", "57P02", "57P03"] {
            #expect(
                PostgresError(sqlstate: sqlstate, constraint: nil, message: "") == .connectionLost(outcomeUnknown: true)
            )
        }
        #expect(
            PostgresError(sqlstate: "42P01", constraint: nil, message: "m") == .server(sqlstate: "42P01", message: "m"))
    }

    @Test func transientErrorsAreTheRetryableOnes() {
        let transient: [PostgresError] = [
            .deadlineExceeded, .connectionLost(outcomeUnknown: true), .unavailable, .poolTimeout, .serializationFailure,
            .deadlockDetected,
        ]
        let permanent: [PostgresError] = [
            .uniqueViolation(constraint: nil), .checkViolation(constraint: nil), .foreignKeyViolation(constraint: nil),
            .decoding(""), .server(sqlstate: "42P01", message: ""),
        ]
        #expect(transient.allSatisfy { $0.isTransient })
        #expect(!permanent.contains { $0.isTransient })
    }
}
