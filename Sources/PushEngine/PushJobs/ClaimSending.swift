import NIOConcurrencyHelpers
import RegistryCore
import Store

/// One claim while its devices are sent through the worker's `JobLanes`: the records of the
/// pushes answered so far, and the claim's task waiting for the last one.
final class ClaimSending: Sendable {
    typealias Send = @Sendable (PushJobClaim.Delivery) async -> PushResultRecord?
    private typealias Waiting = CheckedContinuation<[PushResultRecord], Never>

    private struct Progress {
        var records: [PushResultRecord] = []
        var left: Int
        var whenDone: Waiting?
    }

    private let deliveries: [PushJobClaim.Delivery]
    private let sendOne: Send
    private let progress: NIOLockedValueBox<Progress>

    /// `send` sends one delivery and returns its record; nil for a push not started.
    init(_ deliveries: [PushJobClaim.Delivery], send: @escaping Send) {
        self.deliveries = deliveries
        sendOne = send
        var progress = Progress(left: deliveries.count)
        progress.records.reserveCapacity(deliveries.count)
        self.progress = NIOLockedValueBox(progress)
    }

    /// Queues every delivery in its provider's lane and returns their records once all are sent
    /// (none for a push not started). A delivery without a device is not queued: `send` records
    /// it at once.
    func send(through lanes: JobLanes) async -> [PushResultRecord] {
        var byProvider: [ProviderName: [Int]] = [:]
        var unregistered: [Int] = []
        for (index, delivery) in deliveries.enumerated() {
            if let device = delivery.device {
                byProvider[device.provider, default: []].append(index)
            } else {
                unregistered.append(index)
            }
        }
        for index in unregistered { await send(at: index) }
        return await withCheckedContinuation { continuation in
            let records = progress.withLockedValue { progress -> [PushResultRecord]? in
                guard progress.left > 0 else { return progress.records }
                progress.whenDone = continuation
                return nil
            }
            if let records { return continuation.resume(returning: records) }
            for (provider, indices) in byProvider { lanes.enqueue(self, indices: indices, provider: provider) }
        }
    }

    /// Sends the `index`th delivery and counts it in.
    func send(at index: Int) async {
        let record = await sendOne(deliveries[index])
        let done = progress.withLockedValue { progress -> (Waiting, [PushResultRecord])? in
            if let record { progress.records.append(record) }
            progress.left -= 1
            guard progress.left == 0, let whenDone = progress.whenDone else { return nil }
            progress.whenDone = nil
            return (whenDone, progress.records)
        }
        if let (whenDone, records) = done { whenDone.resume(returning: records) }
    }
}
