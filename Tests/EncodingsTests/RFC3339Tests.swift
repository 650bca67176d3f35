import Foundation
import Testing

@testable import Encodings

@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("2026-11-22T03:24:00Z", 1_795_317_840.0),
        ("2026-11-22T03:24:00.5Z", 1_795_317_840.5),
        ("2026-11-22t03:24:00.250z", 1_795_317_840.25),
        ("2026-11-22 03:24:00Z", 1_795_317_840.0),
        ("2026-11-22T04:24:00+01:00", 1_795_317_840.0),
        ("2026-11-21T22:54:00-04:30", 1_795_317_840.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1969-12-31T23:59:59Z", -1.0),
    ])
    func parses(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-11-22T03:24:00", "2026-11-22T03:24Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T03:60:00Z", "2026-11-22T03:24:60Z",
        "2026-11-22T03:24:00.Z", "2026-11-22T03:24:00+0100", "2026-11-22T03:24:00+24:00", "2026-11-22T03:24:00Zjunk",
        "2026-11-22X03:24:00Z", "+2026-11-22T03:24:00Z",
    ])
    func rejects(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test(arguments: [
        ("2024-02-29 23:59:59.123456+00", "2024-02-29T23:59:59.123456Z"),
        ("2024-03-01 05:29:59.123456+05:30:00", "2024-02-29T23:59:59.123456Z"),
        ("2024-02-29 23:59:59.5-01", "2024-03-01T00:59:59.500000Z"),
        ("2024-02-29 23:59:59", "2024-02-29T23:59:59.000000Z"),
    ])
    func postgresOffsetsOnlyWhenAskedFor(text: String, utc: String) throws {
        #expect(RFC3339.parse(text) == nil)
        #expect(RFC3339.parse(text, offsets: .postgres).map(RFC3339.format) == utc)
    }

    @Test func theSameCalendarForBothDialects() {
        for text in ["2024-02-31 00:00:00+00", "2024-02-29 23:59:60+00"] {
            #expect(RFC3339.parse(text, offsets: .postgres) == nil, "\(text)")
        }
    }

    @Test func formatsUTCWithMicroseconds() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000000Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_317_840.123456)) == "2026-11-22T03:24:00.123456Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500000Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000000Z")
    }

    @Test func roundTripsAtMicrosecondPrecision() throws {
        for seconds in stride(from: -1e9, through: 4e9, by: 123_456_789.654321) {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = try #require(RFC3339.parse(RFC3339.format(date)))
            #expect(abs(parsed.timeIntervalSince1970 - seconds) < 1e-6)
        }
    }
}
