import Testing

@testable import Postgres

@Suite struct WALPositionTests {
    @Test func readsAndWritesPostgresTextForm() {
        #expect(WALPosition("16/B374D848")?.bytes == 0x16_B374_D848)
        #expect(WALPosition("0/0") == .zero)
        #expect(WALPosition("ffffffff/FFFFFFFF")?.bytes == UInt64.max)
        #expect(WALPosition(bytes: 0x16_B374_D848).description == "16/B374D848")
        #expect(WALPosition(bytes: 0x1_0000_0000).description == "1/0")
    }

    @Test func refusesAnythingElse() {
        let malformed = [
            "", "/", "0/", "/0", "0/0/0", "123456789/0", "0/123456789", "0x1/0", "g/0", " 0/0", "-1/0", "+1/0",
        ]
        for text in malformed {
            #expect(WALPosition(text) == nil, "\(text)")
        }
    }

    @Test func ordersByPosition() {
        #expect(WALPosition("0/FFFFFFFF")! < WALPosition("1/0")!)
        #expect(WALPosition("A/10")! > WALPosition("A/F")!)
    }
}
