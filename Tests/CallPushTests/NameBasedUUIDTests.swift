import Foundation
import Testing

@testable import CallPush

@Suite struct NameBasedUUIDTests {
    /// Python's `uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")`, the usual published vector.
    @Test func theKnownVersion5Vector() {
        #expect(
            NameBasedUUID.v5(namespace: NameBasedUUID.dns, name: "python.org").uuidString.lowercased()
                == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    @Test func theCallEventNamespaceIsItselfAVersion5UUID() {
        #expect(
            NameBasedUUID.callEvents
                == NameBasedUUID.v5(namespace: NameBasedUUID.url, name: "urn:device-registry:call-event"))
        #expect(NameBasedUUID.callEvents.uuidString.lowercased() == "446d217a-d362-550c-8b99-c817910497ca")
    }

    @Test func anEventIDThatIsAUUIDIsUsedAsItIsInLowercase() {
        #expect(
            NameBasedUUID.eventUUID("550E8400-E29B-41D4-A716-446655440000") == "550e8400-e29b-41d4-a716-446655440000")
    }

    @Test func anyOtherEventIDGivesTheSameVersion5UUIDEveryTime() {
        let first = NameBasedUUID.eventUUID("evt_01jqr5k8m3n4p6q7r8s9t0u1v3")
        // Python: uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_URL, "urn:device-registry:call-event"), "evt_…v3")
        #expect(first == "3709224a-ef9a-5829-b196-455722a1a485")
        #expect(first == NameBasedUUID.eventUUID("evt_01jqr5k8m3n4p6q7r8s9t0u1v3"))
        #expect(first != NameBasedUUID.eventUUID("evt_01jqr5k8m3n4p6q7r8s9t0u1v4"))
        let uuid = UUID(uuidString: first)
        #expect(uuid != nil)
        #expect(first[first.index(first.startIndex, offsetBy: 14)] == "5")  // version
        #expect("89ab".contains(first[first.index(first.startIndex, offsetBy: 19)]))  // variant
    }
}
