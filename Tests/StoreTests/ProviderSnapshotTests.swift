import CallPush
import Foundation
import RegistryCore
import Testing

@testable import Store

/// The provider snapshot's rules, without a database: fresh within the age asked for, dropped by
/// a write, and never refilled by a read that began before the write.
@Suite struct ProviderSnapshotTests {
    static func ios() throws -> StoredProvider {
        StoredProvider(
            provider: try Provider(name: ProviderName("ios"), service: .apns, topic: "com.example.app"),
            endpoint: nil, callFormat: .stream, templates: .none, credentials: nil, createdAt: Date(), updatedAt: Date()
        )
    }

    @Test func aSnapshotServesReadersWithinItsAgeOnly() throws {
        let snapshot = ProviderSnapshot()
        let readAt = ContinuousClock.now
        snapshot.store([try Self.ios()], readStartingAt: snapshot.generation, readAt: readAt)
        #expect(snapshot.providers(readWithin: .seconds(1), now: readAt + .milliseconds(500))?.count == 1)
        #expect(snapshot.providers(readWithin: .seconds(1), now: readAt + .milliseconds(1500)) == nil)
        #expect(snapshot.providers(readWithin: .zero, now: readAt + .milliseconds(1)) == nil)
    }

    @Test func aWriteDropsTheSnapshot() throws {
        let snapshot = ProviderSnapshot()
        snapshot.store([try Self.ios()], readStartingAt: snapshot.generation, readAt: .now)
        snapshot.invalidate()
        #expect(snapshot.providers(readWithin: .seconds(60)) == nil)
    }

    @Test func aReadThatBeganBeforeAWriteIsNotKept() throws {
        let snapshot = ProviderSnapshot()
        let generation = snapshot.generation
        snapshot.invalidate()  // A write commits while the read is in flight.
        snapshot.store([try Self.ios()], readStartingAt: generation, readAt: .now)
        #expect(snapshot.providers(readWithin: .seconds(60)) == nil)
    }
}
