import CallPush
import Foundation
import NIOConcurrencyHelpers
import RegistryCore
import Store

extension PushJobWorker {
    /// Sends one claim's devices, renewing its lease meanwhile, then records what was sent and
    /// gives the batch back, with what was not started (the job ended, or the lease could not be
    /// held) still pending. Shutting down starts no more pushes, but lets those in flight finish
    /// and be recorded: a cancelled task could neither wait for a push service's answer nor write
    /// to the database.
    func send(_ claim: PushJobClaim, of job: Job) async {
        let lease = ClaimLease(validUntil: .now + context.pushJobs.settings.lease)
        let work = Task { await self.send(claim, of: job, lease: lease) }
        await withTaskCancellationHandler {
            await work.value
        } onCancel: {
            lease.stop()
        }
    }

    private func send(_ claim: PushJobClaim, of job: Job, lease: ClaimLease) async {
        let store = context.pushJobs.store
        let settings = context.pushJobs.settings
        let jobDeadline = ContinuousClock.now + .milliseconds(Int64(job.live.deadlineAt.timeIntervalSinceNow * 1000))
        let providers: [ProviderName: StoredProvider]
        let keys: [ProviderName: [String: PayloadKey]]
        do {
            // From the engine's snapshot, as for `POST /v1/push`: a read of the providers per
            // claim was a database round trip between the claim and its first push.
            providers = try await context.providers(of: claim.deliveries.compactMap(\.device))
            keys = try await payloadKeys(for: claim, of: job, providers: providers)
        } catch {
            // Nothing sent: the batch goes back at once rather than when the lease runs out.
            try? await store.finish(claim, outcomes: [])
            return
        }
        let renewing = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: settings.renewEvery)
                guard !Task.isCancelled else { return }
                let started = ContinuousClock.now
                if let live = try? await store.renew(claim, lease: settings.lease) {
                    lease.renewed(until: started + settings.lease, jobLive: live)
                }
            }
        }
        let outcomes = await push(
            claim.deliveries, of: job, providers: providers, keys: keys, lease: lease, jobDeadline: jobDeadline)
        renewing.cancel()
        await renewing.value
        PushJobMetrics.recorded(outcomes)
        await record(outcomes, of: claim)
    }

    /// The opened payload keys a call event's devices need (none for a push).
    private func payloadKeys(
        for claim: PushJobClaim, of job: Job, providers: [ProviderName: StoredProvider]
    ) async throws -> [ProviderName: [String: PayloadKey]] {
        guard case .callEvent = job.work else { return [:] }
        return try await context.callComposers.payloadKeys(
            of: claim.deliveries.compactMap(\.device), providers: providers)
    }

    /// The claim's pushes, each device's record but none for a push not started: queued in their
    /// providers' lanes behind the claims before it (`JobLanes`).
    private func push(
        _ deliveries: [PushJobClaim.Delivery], of job: Job, providers: [ProviderName: StoredProvider],
        keys: [ProviderName: [String: PayloadKey]], lease: ClaimLease, jobDeadline: ContinuousClock.Instant
    ) async -> [PushResultRecord] {
        await ClaimSending(deliveries) { delivery in
            let device = delivery.device
            return await self.push(
                delivery, of: job, provider: device.flatMap { providers[$0.provider] },
                key: device.flatMap { keys[$0.provider]?[$0.token.value] }, lease: lease, jobDeadline: jobDeadline)
        }.send(through: lanes)
    }

    /// One device's push; nil when it was not started.
    private func push(
        _ delivery: PushJobClaim.Delivery, of job: Job, provider: StoredProvider?, key: PayloadKey?,
        lease: ClaimLease, jobDeadline: ContinuousClock.Instant
    ) async -> PushResultRecord? {
        guard let device = delivery.device else {
            return PushResultRecord(
                deviceID: delivery.deviceID, status: "skipped", reason: "unregistered", serviceID: nil)
        }
        guard lease.allowsStarting, !context.pushJobs.wasCancelledHere(job.live.id), ContinuousClock.now < jobDeadline
        else { return nil }
        inFlight.withLockedValue { $0 += 1 }
        defer { inFlight.withLockedValue { $0 -= 1 } }
        let deadline = min(jobDeadline, .now + context.pushJobs.settings.pushTimeout)
        let result: PushResult
        switch job.work {
        case .push(let request):
            result = await DevicePush(
                device: device, provider: provider, request: request, deadline: deadline, lane: .bulk
            ).run(context: context, senders: context.pushSenders)
        case .callEvent(let event):
            result = await CallEventSending(event: event, context: context, lane: .bulk)
                .send(to: device, provider: provider, key: key, deadline: deadline)
        }
        return PushResultRecord(
            deviceID: delivery.deviceID, status: result.status.rawValue, reason: result.reason,
            serviceID: result.service_id)
    }

    /// Records outcomes and gives the batch back, retrying a failed write while the lease still
    /// holds: an outcome not recorded means its push is sent again once the lease runs out.
    private func record(_ outcomes: [PushResultRecord], of claim: PushJobClaim) async {
        let giveUp = ContinuousClock.now + context.pushJobs.settings.lease
        while true {
            do {
                try await context.pushJobs.store.finish(claim, outcomes: outcomes)
                return
            } catch {
                guard ContinuousClock.now < giveUp, !Task.isCancelled else {
                    context.logger.warning(
                        "push job outcomes not recorded; their devices will be sent again",
                        metadata: ["job": "\(claim.job)", "devices": "\(outcomes.count)", "error": "\(error)"])
                    return
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
