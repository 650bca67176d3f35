import RegistryCore
import Testing

@testable import CallPush

@Suite struct NotificationTemplatesTests {
    static func parse(_ text: String) throws(ValidationErrors) -> NotificationTemplates {
        try NotificationTemplates.parse(try! JSONParser.parse(text))
    }

    static func errors(_ text: String) -> [ValidationError] {
        do {
            _ = try parse(text)
            return []
        } catch {
            return error.errors
        }
    }

    @Test func theIssuesExampleParsesAndShowsBack() throws {
        let text = #"{"call.missed":{"title":"Missed call","body":"You missed a call from {{ user.display_name }}"}}"#
        let templates = try Self.parse(text)
        #expect(templates.json.text == text)
        #expect(templates == Fixtures.missedCallTemplates)
    }

    @Test func everyPlaceholderIsAccepted() throws {
        for placeholder in PushTemplate.Placeholder.allCases {
            for spelling in [
                "{{ \(placeholder.rawValue) }}", "{{\(placeholder.rawValue)}}", "{{  \(placeholder.rawValue) }}",
            ] {
                #expect(throws: Never.self) { try PushTemplate("x \(spelling) y", field: "t") }
            }
        }
    }

    @Test func anUnknownPlaceholderIsRefusedWhenSaved() {
        let errors = Self.errors(#"{"call.missed":{"title":"From {{ user.displayname }}","body":"{{ call.cid }}"}}"#)
        #expect(errors.map(\.field) == ["templates.call.missed.title", "templates.call.missed.body"])
        #expect(
            errors[0].message.hasPrefix(
                "has an unknown placeholder {{ user.displayname }}; did you mean {{ user.display_name }}?"))
        #expect(errors[1].message.contains("did you mean {{ call.id }}?"))
        #expect(errors[1].message.hasSuffix("{{ call.type }}, {{ receiver.id }}"))
    }

    @Test func anUnclosedPlaceholderIsRefused() {
        #expect(Self.errors(#"{"call.ring":{"title":"Hi {{ user.id"}}"#).map(\.field) == ["templates.call.ring.title"])
    }

    /// U+0000 would reach PostgreSQL's jsonb, which cannot hold it (a 500 the contract fuzz found).
    @Test func controlCharactersAreRefusedAndLengthCountsCodePoints() {
        let errors = Self.errors(#"{"call.ring":{"title":"a\u0000b","body":"line\nbreak"}}"#)
        #expect(errors.map(\.field) == ["templates.call.ring.title", "templates.call.ring.body"])
        #expect(errors.allSatisfy { $0.message == "must not contain control characters" })
        // 1,024 code points that are fewer characters (each "e" + combining acute is one Character).
        let combined = String(repeating: "e\u{301}", count: 512)
        #expect(throws: Never.self) { try PushTemplate(combined, field: "t") }
        #expect(throws: ValidationError.self) { try PushTemplate(combined + "x", field: "t") }
    }

    @Test func unknownEventTypesAndKeysAreRefused() {
        let errors = Self.errors(#"{"call.mised":{"title":"x"},"call.ring":{"titel":"x"},"call.notification":"x"}"#)
        #expect(
            errors.map(\.field) == ["templates.call.ring.titel", "templates.call.notification", "templates.call.mised"])
        #expect(errors[0].message == "unknown field; did you mean \"title\"?")
        #expect(errors[1].message == "must be an object, not a string")
        #expect(errors[2].message == "unknown field; did you mean \"call.missed\"?")
    }

    @Test func textWithoutPlaceholdersAndStrayBracesIsKeptAsItIs() throws {
        let template = try PushTemplate("a }} b { c", field: "t")
        #expect(template.render { _ in "?" } == "a }} b { c")
        #expect(try PushTemplate("", field: "t").render { _ in "?" } == "")
        #expect(try PushTemplate("{{ call.id }}{{ call.id }}", field: "t").render { $0.rawValue } == "call.idcall.id")
    }

    @Test func theCallersNameFallsBackSoABodyIsNeverHalfEmpty() throws {
        let event = try Fixtures.parse(
            #"{"id":"e","type":"call.missed","user_ids":["artem"],"call":{"id":"c"},"caller":{"id":"j","phone_number":"+14155551234"}}"#
        )
        let rendered = Fixtures.missedCallTemplates.render(event, receiver: Fixtures.receiver)
        #expect(rendered.body == "You missed a call from +14155551234")
    }
}
