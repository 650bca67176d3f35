import Foundation
import Testing

@testable import RegistryCore

@Suite struct DeviceEncodingTests {
    @Test func resultsAndErrorsHaveStableNames() {
        #expect(RegistrationResult.allCases.map(\.rawValue) == ["created", "unchanged", "updated", "moved"])
        #expect(FeedbackAction.keptNewer.rawValue == "kept_newer")
        #expect(
            RegistryError(ValidationErrors([ValidationError(field: "a", message: "b")]))
                == .validation([ValidationError(field: "a", message: "b")]))
    }
}
