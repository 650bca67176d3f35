import Testing

@testable import RegistryCore

@Suite("Field suggestions")
struct FieldSuggestionTests {
    @Test func aTypoGetsItsField() {
        #expect(FieldSuggestion.closest(to: "enviroment", among: ["environment", "token"]) == "environment")
    }

    /// A name past 64 bytes is never compared: no field is that long, and comparing costs work per
    /// character of whatever the client sent. (Folded, this one would equal `user_id`.)
    @Test func aNameOver64BytesGetsNoSuggestion() {
        let long = "user_id" + String(repeating: "_", count: 60)
        #expect(FieldSuggestion.closest(to: long, among: ["user_id"]) == nil)
        #expect(FieldSuggestion.closest(to: String(long.prefix(64)), among: ["user_id"]) == "user_id")
    }
}
