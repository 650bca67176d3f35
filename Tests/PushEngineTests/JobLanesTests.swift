import Foundation
import NIOConcurrencyHelpers
import RegistryCore
import TestSupport
import Testing

@testable import PushEngine
@testable import Store

/// The worker's lanes without a database or a push service: the sends are closures.
@Suite("JobLanes")
struct JobLanesTests {
    /// Holds every send that passes it until opened.
    actor Gate {
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        var waitingCount: Int { waiting.count }

        func pass() async {
            guard !isOpen else { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func open() {
            isOpen = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    static func delivery(_ id: Int64, provider: String?) throws -> PushJobClaim.Delivery {
        let now = Date()
        return PushJobClaim.Delivery(
            deviceID: id,
            device: try provider.map {
                Device(
                    userID: try UserID("u\(id)"), provider: try ProviderName($0),
                    token: try PushToken(type: .fcm, raw: "fcm-token:\(id)"), environment: nil, deviceID: nil,
                    platform: nil, appVersion: nil, locale: nil, createdAt: now, updatedAt: now, lastSeenAt: now)
            })
    }

    static func record(_ delivery: PushJobClaim.Delivery) -> PushResultRecord {
        PushResultRecord(deviceID: delivery.deviceID, status: "sent", reason: nil, serviceID: nil)
    }

    @Test func eachProviderSendsTheOlderClaimFirstAndEveryClaimGetsItsRecords() async throws {
        let lanes = JobLanes(sendersPerProvider: 1, givingWayTo: RingsInFlight(), tasks: EngineTasks())
        let gate = Gate()
        let sent = NIOLockedValueBox<[String: [Int64]]>([:])
        let send: ClaimSending.Send = { delivery in
            await gate.pass()
            sent.withLockedValue {
                $0[delivery.device?.provider.value ?? "none", default: []].append(delivery.deviceID)
            }
            // Not started (its lease ran out, say): no record.
            return delivery.deviceID == 4 ? nil : Self.record(delivery)
        }
        let older = ClaimSending(
            [
                try Self.delivery(1, provider: "p"), try Self.delivery(2, provider: "q"),
                try Self.delivery(3, provider: "p"), try Self.delivery(4, provider: "q"),
            ], send: send)
        let newer = ClaimSending(
            [
                try Self.delivery(5, provider: "p"), try Self.delivery(6, provider: nil),
                try Self.delivery(7, provider: "p"),
            ],
            send: send)
        let olderRecords = Task { await older.send(through: lanes) }
        // Both lanes' first sends wait at the gate: the older claim is queued whole.
        try await TestSupport.waitUntil("the older claim is queued") { await gate.waitingCount == 2 }
        let newerRecords = Task { await newer.send(through: lanes) }
        // The device without a provider is recorded at once, at the gate too.
        try await TestSupport.waitUntil("the newer claim is queued") { await gate.waitingCount == 3 }
        await gate.open()
        #expect(Set(await olderRecords.value.map(\.deviceID)) == [1, 2, 3])
        #expect(Set(await newerRecords.value.map(\.deviceID)) == [5, 6, 7])
        let order = sent.withLockedValue { $0 }
        #expect(order["p"] == [1, 3, 5, 7] && order["q"] == [2, 4] && order["none"] == [6], "\(order)")
    }

    @Test func aProviderHasAtMostItsSendersInFlight() async throws {
        let lanes = JobLanes(sendersPerProvider: 3, givingWayTo: RingsInFlight(), tasks: EngineTasks())
        let inFlight = NIOLockedValueBox((now: 0, most: 0))
        let claim = ClaimSending(try (0..<40).map { try Self.delivery($0, provider: "p") }) { delivery in
            inFlight.withLockedValue {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            for _ in 0..<3 { await Task.yield() }
            inFlight.withLockedValue { $0.now -= 1 }
            return Self.record(delivery)
        }
        let records = await claim.send(through: lanes)
        #expect(records.count == 40)
        let most = inFlight.withLockedValue { $0.most }
        #expect((1...3).contains(most), "\(most) at once")
    }

    /// A claim of `count` devices of provider "p" from `first` on.
    static func claim(_ first: Int64, _ count: Int64, send: @escaping ClaimSending.Send) throws -> ClaimSending {
        ClaimSending(try (first..<first + count).map { try delivery($0, provider: "p") }, send: send)
    }

    @Test func whileARingIsInFlightAProviderStartsThreeQuartersOfItsSendersAndAllAgainAfter() async throws {
        let (rings, tasks) = (RingsInFlight(), EngineTasks())
        let lanes = JobLanes(sendersPerProvider: 4, givingWayTo: rings, tasks: tasks)
        let gate = Gate()
        let send: ClaimSending.Send = { delivery in
            await gate.pass()
            return Self.record(delivery)
        }
        let ringing = Gate()
        let ring = Task { await rings.during { await ringing.pass() } }
        try await TestSupport.waitUntil("the ring is in flight") { await ringing.waitingCount == 1 }
        let during = Task { try await Self.claim(0, 8, send: send).send(through: lanes) }
        try await TestSupport.waitUntil("three senders wait") { await gate.waitingCount >= 3 }
        // Every sender is started before any reaches the gate, and none ends while it is shut.
        #expect(tasks.count == 3)
        await ringing.open()
        await ring.value
        let after = Task { try await Self.claim(8, 8, send: send).send(through: lanes) }
        try await TestSupport.waitUntil("the next claim starts the fourth") { await gate.waitingCount == 4 }
        #expect(tasks.count == 4)
        await gate.open()
        let (duringRecords, afterRecords) = (try await during.value, try await after.value)
        #expect(duringRecords.count == 8 && afterRecords.count == 8)
    }

    @Test func whenARingStartsSendersOverThreeQuartersEndAfterTheirPush() async throws {
        let (rings, tasks) = (RingsInFlight(), EngineTasks())
        let lanes = JobLanes(sendersPerProvider: 4, givingWayTo: rings, tasks: tasks)
        let (first, later) = (Gate(), Gate())
        // The four senders take devices 0-3 first.
        let claim = try Self.claim(0, 12) { delivery in
            await (delivery.deviceID < 4 ? first : later).pass()
            return Self.record(delivery)
        }
        let records = Task { await claim.send(through: lanes) }
        try await TestSupport.waitUntil("four senders wait") { await first.waitingCount == 4 }
        let ringing = Gate()
        let ring = Task { await rings.during { await ringing.pass() } }
        try await TestSupport.waitUntil("the ring is in flight") { await ringing.waitingCount == 1 }
        await first.open()
        try await TestSupport.waitUntil("three senders go on, one has ended") {
            await later.waitingCount == 3 && tasks.count == 3
        }
        await ringing.open()
        await ring.value
        await later.open()
        #expect(await records.value.count == 12)
    }
}
