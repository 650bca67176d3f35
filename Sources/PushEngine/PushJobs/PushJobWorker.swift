import CallPush
import Foundation
import Logging
import NIOConcurrencyHelpers
import PushRules
import RegistryCore
import Store

/// Works off push jobs in this instance: claims `batchSize` devices at a time from the live jobs
/// in turn (round robin, so a big job does not hold back a small one), up to `parallelBatches`
/// claims at once, and sends each through `DevicePush` or, for a call event, `CallEventSending`
/// (the senders, outcome rules and registry feedback of `POST /v1/push` and call events), in its
/// providers' lanes (`JobLanes`), oldest claim first. Outcomes are recorded per claim.
///
/// At least once: a crash loses the outcomes of the claims in progress, whose devices are sent
/// again once their lease runs out; so at most `batchSize × parallelBatches` pushes per crashed
/// instance are repeated, and none is skipped.
final class PushJobWorker: Sendable {
    /// A live job with what it sends parsed once.
    struct Job {
        enum Work {
            case push(PushRequest)
            /// Composed per device in its provider's format (`CallEventJobIntake`).
            case callEvent(CallEvent)
        }

        let live: LivePushJob
        let work: Work
    }

    let context: Engine
    private var jobs: PushJobs { context.pushJobs }
    private var settings: PushJobSettings { context.pushJobs.settings }
    let lanes: JobLanes
    let inFlight = NIOLockedValueBox(0)

    init(context: Engine) {
        self.context = context
        lanes = JobLanes(
            sendersPerProvider: context.pushJobs.settings.concurrency, givingWayTo: context.ringsInFlight,
            tasks: context.tasks)
    }

    /// Until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.keepHouse() }
            await dispatch(into: &group)
            group.cancelAll()
        }
    }

    /// Once a second: ends overdue jobs as `expired`, and records the queue metrics.
    private func keepHouse() async {
        while !Task.isCancelled {
            do {
                _ = try await jobs.store.expireOverdue()
                let (queued, oldest) = try await jobs.store.queueStatistics()
                PushJobMetrics.queued.record(queued)
                PushJobMetrics.oldestQueuedSeconds.record(oldest.map { max(0, -$0.timeIntervalSinceNow) } ?? 0)
            } catch {
                context.logger.debug("push job housekeeping failed", metadata: ["error": "\(error)"])
            }
            PushJobMetrics.inFlight.record(inFlight.withLockedValue { $0 })
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func dispatch(into group: inout DiscardingTaskGroup) async {
        let claims = AsyncSlots(limit: settings.parallelBatches)
        var live: [Job] = []
        var parsed: [String: Job.Work] = [:]
        var emptied: Set<String> = []
        var turn = 0
        var refreshed = ContinuousClock.now - settings.pollEvery
        while !Task.isCancelled {
            if ContinuousClock.now - refreshed >= settings.pollEvery {
                refreshed = .now
                do {
                    live = try await jobs.store.liveJobs().compactMap { job in
                        parsed[job.id].map { Job(live: job, work: $0) } ?? self.parse(job)
                    }
                    parsed = Dictionary(live.map { ($0.live.id, $0.work) }, uniquingKeysWith: { first, _ in first })
                    emptied = []
                } catch {
                    context.logger.debug("push jobs could not be listed", metadata: ["error": "\(error)"])
                }
            }
            let candidates = live.filter { !emptied.contains($0.live.id) }
            guard !candidates.isEmpty else {
                try? await Task.sleep(for: settings.pollEvery)
                continue
            }
            do { try await claims.acquire() } catch { return }
            let job = candidates[turn % candidates.count]
            turn &+= 1
            let claim: PushJobClaim?
            do {
                claim = try await jobs.store.claim(job: job.live.id, limit: settings.batchSize, lease: settings.lease)
            } catch {
                claims.release()
                if Task.isCancelled { return }
                context.logger.warning(
                    "push job claim failed", metadata: ["job": "\(job.live.id)", "error": "\(error)"])
                try? await Task.sleep(for: settings.pollEvery)
                continue
            }
            guard let claim, !claim.deliveries.isEmpty else {
                // Nothing left to claim for now (all sent or in flight), or the job is over.
                emptied.insert(job.live.id)
                claims.release()
                continue
            }
            group.addTask {
                await self.send(claim, of: job)
                claims.release()
            }
        }
    }

    private func parse(_ job: LivePushJob) -> Job? {
        do {
            let json = try JSONParser.parse(job.payload)
            switch job.kind {
            case CallEventJobIntake.kind:
                // The stored event always carries `ringing_at`, checked when it was accepted; the
                // far arrival time only keeps that check from failing on a later clock.
                return Job(
                    live: job, work: .callEvent(try CallEvent.parse(json, arrivedAt: .distantFuture, users: .streamed)))
            default:
                guard let payload = json.objectValue else {
                    throw ValidationErrors([ValidationError(field: "", message: "is not an object")])
                }
                return Job(live: job, work: .push(try PushJobRequest.request(from: payload, acceptedAt: job.createdAt)))
            }
        } catch {
            context.logger.error("a stored push job no longer parses", metadata: ["job": "\(job.id)"])
            return nil
        }
    }
}
