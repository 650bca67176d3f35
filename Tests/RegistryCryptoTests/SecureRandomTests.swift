import Testing

@testable import RegistryCrypto

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 16, 32, 1000])
    func returnsTheRequestedLength(count: Int) throws {
        #expect(try SecureRandom.bytes(count: count).count == count)
    }

    @Test func consecutiveDrawsDiffer() throws {
        var seen = Set<[UInt8]>()
        for _ in 0..<100 { seen.insert(try SecureRandom.bytes(count: 16)) }
        #expect(seen.count == 100)
    }

    @Test func bytesAreNotConstant() throws {
        // 1000 bytes all equal has probability 256^-999; this catches an unfilled buffer.
        #expect(Set(try SecureRandom.bytes(count: 1000)).count > 1)
    }
}
