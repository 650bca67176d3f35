import Encodings
import Foundation
import Testing

@testable import RegistryCore

@Suite struct ListingTests {
    @Test(arguments: [Int64(0), 1, 99, 123_456_789, Int64.max])
    func cursorRoundTrips(id: Int64) throws {
        let encoded = ListCursor(lastID: id).encoded
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        #expect(try ListCursor(encoded).lastID == id)
    }

    @Test(arguments: ["", "garbage!", "djE6MTIz==", "djI6MTIz", "djE6LTE", "djE6YWJj", "MTIz", "djE6MTIzCg"])
    func cursorRejectsAnythingItDidNotMake(raw: String) {
        #expect(throws: ValidationError.self) { try ListCursor(raw) }
        do { _ = try ListCursor(raw) } catch { #expect(error.field == "cursor") }
    }

    @Test func filterDefaults() throws {
        let filter = try ListFilter.parse([:])
        #expect(filter == ListFilter())
        #expect(filter.limit == 100)
    }

    @Test func filterParsesEveryParameter() throws {
        let filter = try ListFilter.parse([
            "limit": "1000", "cursor": ListCursor(lastID: 7).encoded, "seen_before": "2026-01-31T12:00:00+01:00",
            "type": "voip", "environment": "sandbox", "user_id": "u1", "provider": "ios",
        ])
        #expect(filter.limit == 1000)
        #expect(filter.cursor?.lastID == 7)
        #expect(filter.seenBefore.map(RFC3339.format) == "2026-01-31T11:00:00.000000Z")
        #expect(filter.type == .voip)
        #expect(filter.environment == .sandbox)
        #expect(filter.userID?.value == "u1")
        #expect(filter.provider?.value == "ios")
    }

    @Test func filterReportsEveryBadParameter() {
        do {
            _ = try ListFilter.parse([
                "limit": "0", "cursor": "nope", "seen_before": "yesterday", "type": "x", "environment": "dev",
                "user_id": "", "provider": "IOS", "seenBefore": "x",
            ])
            Issue.record("accepted")
        } catch {
            #expect(
                error.errors.map(\.field) == [
                    "limit", "cursor", "seen_before", "type", "environment", "user_id", "provider", "seenBefore",
                ])
            #expect(error.errors.last?.message == "unknown field; did you mean \"seen_before\"?")
        }
    }

    @Test(arguments: ["1001", "-1", "ten", "1.5", ""])
    func limitBounds(raw: String) {
        #expect(throws: ValidationErrors.self) { try ListFilter.parse(["limit": raw]) }
    }
}
