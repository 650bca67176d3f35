import Testing

@testable import PushEngine

/// Metric handles made once per label set, then reused.
@Suite struct MetricHandlesTests {
    final class Made: Sendable {
        let labels: String
        init(_ labels: String) { self.labels = labels }
    }

    @Test func aHandleIsMadeOncePerLabelSet() {
        let handles = MetricHandles<String, Made> { Made($0) }
        let first = handles["ios"]
        #expect(handles["ios"] === first)
        #expect(handles["android"] !== first && handles["android"].labels == "android")
    }
}
