import Testing

@testable import Encodings

@Suite struct ProcessUniqueBitsTests {
    /// The counter makes every call differ; the mixing makes neighbours differ in both words.
    @Test func everyCallDiffersInBothWords() {
        let drawn = (0..<10_000).map { _ in ProcessUniqueBits.next() }
        #expect(Set(drawn.map(\.0)).count == drawn.count)
        #expect(Set(drawn.map(\.1)).count == drawn.count)
        #expect(drawn[0].0 != drawn[0].1)
    }
}
