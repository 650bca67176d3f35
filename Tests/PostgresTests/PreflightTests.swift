import Postgres
import TestSupport
import Testing

@Suite struct PreflightTests {
    @Test func reportsTheServerVersion() async throws {
        let info = try await withPool { try await Preflight.check($0, allowUnsafeDurability: false) }
        #expect(info.versionNumber >= 150_000)
        #expect(info.version.hasPrefix("1"))
        #expect(info.fsync && info.synchronousCommit == "on")
    }

    @Test func refusesSynchronousCommitOffUnlessAllowed() async throws {
        try await withPool(PoolSettings(urlSuffix: "?options=-c%20synchronous_commit%3Doff")) { pool in
            await #expect(throws: PreflightError.unsafeDurability(setting: "synchronous_commit", value: "off")) {
                try await Preflight.check(pool, allowUnsafeDurability: false)
            }
            let info = try await Preflight.check(pool, allowUnsafeDurability: true)
            #expect(info.synchronousCommit == "off")
        }
    }
}
